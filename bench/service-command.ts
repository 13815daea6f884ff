/**
 * How the benchmarks start the service: as `npm start` and the image do,
 * with `--smol` and the JavaScript heap collected as if the machine had
 * 256 MiB (docs/performance.md, Memory). `env` execs the server, so the
 * process id the benchmarks watch is the server's.
 */
export const SERVICE_COMMAND = [
  'env',
  'BUN_JSC_forceRAMSize=268435456',
  process.execPath,
  '--smol',
  'src/index.ts',
];
