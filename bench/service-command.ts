/**
 * How the benchmarks start the service: as `npm start`, the image and the
 * single binary do, with `--smol` (docs/performance.md, Memory).
 */
export const SERVICE_COMMAND = [process.execPath, '--smol', 'src/index.ts'];
