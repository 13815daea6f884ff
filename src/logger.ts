import { writeSync } from 'node:fs';
import type { Config } from '@/config';

const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 } as const;
type Level = Exclude<keyof typeof levels, 'silent'>;

export type Logger = Record<Level, (message: string, fields?: Record<string, unknown>) => void> & {
  /** Whether debug lines are written: callers skip building what only such a line needs. */
  readonly debugOn: boolean;
};

/** Flush when this much is waiting, whatever the event loop does. */
const FLUSH_AT = 64 * 1024;

/**
 * Lines to stdout, batched: one `write(2)` per turn of the event loop (or per
 * 64 KiB) instead of one per line: with a line per request, a write per line
 * is a large share of a cheap read's CPU time (docs/performance.md). Written
 * synchronously, so the process's exit flushes whatever is left.
 */
export function bufferedStdout(): (line: string) => void {
  let pending = '';
  let scheduled = false;
  const flush = (atExit = false) => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    try {
      // The stream copes with a pipe that is full; at exit only a blocking write is left.
      if (atExit) writeSync(1, text);
      else process.stdout.write(text);
    } catch {
      // stdout gone (closed pipe): logging must never take the service down.
    }
  };
  process.on('exit', () => flush(true));
  return (line) => {
    pending += `${line}\n`;
    if (pending.length >= FLUSH_AT) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(() => flush());
    }
  };
}

let stdout: ((line: string) => void) | undefined;

let stampedAt = Number.NaN;
let stamp = '';
/** The current time as ISO 8601, formatted once per millisecond (lines come in bursts). */
function isoNow(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    stamp = new Date(now).toISOString();
  }
  return stamp;
}

const ESC = '\u001b[';
const paint = (code: string, text: string) => `${ESC}${code}m${text}${ESC}0m`;
const LEVEL_COLOURS: Record<Level, string> = { debug: '90', info: '34', warn: '33', error: '31' };

/** 2xx green, 3xx cyan, 4xx yellow, 5xx red. */
export const statusColour = (status: number) =>
  status >= 500 ? '31' : status >= 400 ? '33' : status >= 300 ? '36' : '32';

const clockTime = () => {
  const now = new Date();
  return `${now.toTimeString().slice(0, 8)}.${String(now.getMilliseconds()).padStart(3, '0')}`;
};

const fieldText = (value: unknown) =>
  typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);

/**
 * The human-readable line (LOG_FORMAT=pretty, for a terminal): a request as
 * `12:00:01.234 GET /path 200 1.52 ms`, coloured by status; anything else as
 * its level, message and `key=value` fields.
 */
export function prettyLine(name: Level, message: string, fields?: Record<string, unknown>): string {
  const time = paint('2', clockTime());
  if (message === 'request' && fields && typeof fields.status === 'number') {
    const { method, path, status, durationMs } = fields;
    const took = typeof durationMs === 'number' ? paint('2', ` ${durationMs.toFixed(2)} ms`) : '';
    return `${time} ${paint('1', String(method))} ${String(path)} ${paint(statusColour(status), String(status))}${took}`;
  }
  const rest = Object.entries(fields ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ` ${paint('2', `${key}=`)}${fieldText(value)}`)
    .join('');
  return `${time} ${paint(LEVEL_COLOURS[name], name.toUpperCase().padEnd(5))} ${message}${rest}`;
}

/**
 * One JSON object per line on stdout (or, with `format` pretty, one
 * human-readable line); never given secrets, hashes or tokens.
 */
export function createLogger(
  level: Config['logLevel'],
  write: (line: string) => void = (line) => {
    stdout ??= bufferedStdout();
    stdout(line);
  },
  format: Config['logFormat'] = 'json',
): Logger {
  const make = (name: Level) => {
    if (format === 'pretty') {
      return (message: string, fields?: Record<string, unknown>) => {
        if (levels[name] >= levels[level]) write(prettyLine(name, message, fields));
      };
    }
    // The line's fixed start is written by hand and the fields are appended
    // as their own JSON object: no object spread per line.
    const head = `","level":"${name}","msg":`;
    return (message: string, fields?: Record<string, unknown>) => {
      if (levels[name] < levels[level]) return;
      const start = `{"time":"${isoNow()}${head}${JSON.stringify(message)}`;
      const rest = fields === undefined ? '{}' : JSON.stringify(fields);
      write(rest === '{}' ? `${start}}` : `${start},${rest.slice(1)}`);
    };
  };
  return {
    debug: make('debug'),
    info: make('info'),
    warn: make('warn'),
    error: make('error'),
    debugOn: levels.debug >= levels[level],
  };
}
