import { writeSync } from 'node:fs';
import type { Config } from '@/config';

const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 } as const;
type Level = Exclude<keyof typeof levels, 'silent'>;

export type Logger = Record<Level, (message: string, fields?: Record<string, unknown>) => void>;

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

/** One JSON object per line on stdout; never given secrets, hashes or tokens. */
export function createLogger(
  level: Config['logLevel'],
  write: (line: string) => void = (line) => {
    stdout ??= bufferedStdout();
    stdout(line);
  },
): Logger {
  const make = (name: Level) => {
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
  return { debug: make('debug'), info: make('info'), warn: make('warn'), error: make('error') };
}
