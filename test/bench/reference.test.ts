import { describe, expect } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REFERENCE_DIR } from '../../bench/reference-data';
import { sqliteOnly } from '../support/postgres-mode';

const root = join(import.meta.dir, '..', '..');

/** The reference's packages are installed (`bun run bench:reference` does it; a compile of minutes). */
const referenceInstalled =
  Bun.which('node') !== null &&
  Bun.spawnSync(['node', '-e', "new (require('better-sqlite3'))(':memory:')"], {
    cwd: REFERENCE_DIR,
    stdio: ['ignore', 'ignore', 'ignore'],
  }).exitCode === 0;
const loadTools =
  Bun.which('wrk') !== null && Bun.which('taskset') !== null && navigator.hardwareConcurrency >= 2;
const skipReason = !referenceInstalled
  ? ' (skipped: bench/reference not installed, run `bun run bench:reference` once)'
  : !loadTools
    ? ' (skipped: needs wrk, taskset and two CPUs)'
    : '';

interface Row {
  name: string;
  service: { requestsPerSecond: number; errors: number };
  reference: { requestsPerSecond: number; errors: number };
}

describe.skipIf(skipReason !== '')(`bun run bench:reference${skipReason}`, () => {
  sqliteOnly.test(
    'the comparison seeds its own SQLite files',
    'measures the service and the reference side by side on a tiny dataset',
    async () => {
      const work = mkdtempSync(join(tmpdir(), 'bench-reference-test-'));
      try {
        const results = join(work, 'results.json');
        const run = Bun.spawnSync(
          [
            process.execPath,
            'bench/reference-compare.ts',
            '--properties',
            '300',
            '--seconds',
            '1',
            '--warmup',
            '0',
            // One second of settling runs the step without the default's 30 s a server.
            '--settle',
            '1',
            '--database',
            join(work, 'service.db'),
            '--results',
            results,
          ],
          { cwd: root, stdout: 'pipe', stderr: 'pipe' },
        );
        const output = run.stdout.toString();
        expect([run.exitCode, run.stderr.toString()]).toEqual([0, expect.any(String)]);
        expect(output).toContain('reference database: 300 properties');
        expect(output).toMatch(/\| peak resident memory, MB \| \d+ \| \d+ \|/);
        const figures = JSON.parse(readFileSync(results, 'utf8')) as {
          properties: number;
          rounds: number;
          rows: Row[];
          rss: { service: number; reference: number };
        };
        expect(figures.properties).toBe(300);
        // Three rounds by default, each server's peak resident memory over all of them.
        expect(figures.rounds).toBe(3);
        expect(figures.rss.service).toBeGreaterThan(0);
        expect(figures.rss.reference).toBeGreaterThan(0);
        expect(figures.rows.map((row) => row.name)).toEqual([
          'GET /listings/properties/{id}, uniform',
          'the same, 20 creates/s beside it',
          'GET /api/v1/tokens/limits',
          'POST /listings/properties, 1-30 units',
        ]);
        for (const row of figures.rows) {
          expect([row.name, row.service.errors, row.reference.errors]).toEqual([row.name, 0, 0]);
          expect(row.service.requestsPerSecond).toBeGreaterThan(0);
          expect(row.reference.requestsPerSecond).toBeGreaterThan(0);
        }
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
