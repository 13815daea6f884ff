/**
 * How the benchmarks start the service: as `npm start` and the image do,
 * with `--smol` and the JavaScript heap collected as if the machine had
 * 256 MiB, wholly at every collection only past 90 % of that
 * (docs/performance.md, Memory). `env` execs the server, so the process id
 * the benchmarks watch is the server's.
 */
export const SERVICE_COMMAND = [
  'env',
  'BUN_JSC_forceRAMSize=268435456',
  'BUN_JSC_criticalGCMemoryThreshold=0.9',
  process.execPath,
  '--smol',
  'src/index.ts',
];

/** `SERVICE_COMMAND` with each setting it makes itself (`env NAME=value`) that `settings` names replaced. */
export function serviceCommandWith(settings: Record<string, string>): string[] {
  return SERVICE_COMMAND.map((part) => {
    const name = part.split('=', 1)[0]!;
    return part.includes('=') && settings[name] !== undefined ? `${name}=${settings[name]}` : part;
  });
}

/**
 * What the probes (`bench/gc-probe.ts`, `bench/ab-probe.ts`) start the
 * service with on `database`: workers off, the default log level (its line
 * per request is part of the cost), the bench employee's limits out of reach.
 */
export function probeEnv(database: string, jwtSecret: string): Record<string, string> {
  return {
    DATABASE_PATH: database,
    JWT_SECRET: jwtSecret,
    WORKERS: 'off',
    LOG_LEVEL: 'info',
    RATE_LIMIT_EMPLOYEE_PER_MINUTE: '1000000',
    RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '100000000',
  };
}
