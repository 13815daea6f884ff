import type { Config } from '@/config';

const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 } as const;
type Level = Exclude<keyof typeof levels, 'silent'>;

export type Logger = Record<Level, (message: string, fields?: Record<string, unknown>) => void>;

/** One JSON object per line on stdout; never given secrets, hashes or tokens. */
export function createLogger(
  level: Config['logLevel'],
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger {
  const make = (name: Level) => (message: string, fields?: Record<string, unknown>) => {
    if (levels[name] < levels[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: name, msg: message, ...fields }));
  };
  return { debug: make('debug'), info: make('info'), warn: make('warn'), error: make('error') };
}
