import { describe, expect } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findLitestream } from '@/replication';
import type { ReplicationBenchResult } from '../../bench/replication';
import { sqliteOnly } from '../support/postgres-mode';

const root = join(import.meta.dir, '..', '..');

const skipReason = !findLitestream()
  ? ' (skipped: no litestream binary, `npm install` brings it)'
  : Bun.which('wrk') === null || Bun.which('taskset') === null || navigator.hardwareConcurrency < 2
    ? ' (skipped: needs wrk, taskset and two CPUs)'
    : '';

describe.skipIf(skipReason !== '')(`bun run bench:replication${skipReason}`, () => {
  sqliteOnly.test(
    'Litestream replicates the SQLite file',
    'measures creates with replication off and on and samples the WAL under it, on a tiny load',
    async () => {
      const work = mkdtempSync(join(tmpdir(), 'bench-replication-test-'));
      try {
        const results = join(work, 'results.json');
        // A tiny run: 1 s of wrk on each server, then 40 paced creates.
        const run = Bun.spawnSync(
          [
            process.execPath,
            'bench/replication.ts',
            '--seconds',
            '1',
            '--warmup',
            '1',
            '--connections',
            '2',
            '--read-connections',
            '1',
            '--wal-seconds',
            '2',
            '--wal-rate',
            '20',
            '--sample-every',
            '1',
            '--results',
            results,
          ],
          { cwd: root, stdout: 'pipe', stderr: 'pipe' },
        );
        const output = run.stdout.toString();
        expect([run.exitCode, run.stderr.toString()]).toEqual([0, expect.any(String)]);
        expect(output).toMatch(/replication on ÷ off: \d+\.\d{3}× the creates\/s/);
        expect(output).toMatch(/WAL over 2 s at 20 creates\/s/);
        const figures = JSON.parse(readFileSync(results, 'utf8')) as ReplicationBenchResult;
        for (const side of [figures.throughput.off, figures.throughput.on]) {
          expect([side.replication, side.errors]).toEqual([side.replication, 0]);
          expect(side.creates).toBeGreaterThan(0);
          expect(side.reads).toBeGreaterThan(0);
          expect(side.cpuUsPerCreate).toBeGreaterThan(0);
        }
        expect(figures.throughput.ratio).toBeGreaterThan(0);
        expect(figures.wal.errors).toBe(0);
        expect(figures.wal.creates).toBeGreaterThan(20);
        expect(figures.wal.samples.length).toBeGreaterThanOrEqual(3);
        expect(figures.wal.maxWalMb).toBeGreaterThan(0);
        // Litestream shipped the file to the replica folder while the load ran.
        expect(figures.wal.samples.at(-1)!.replicaMb).toBeGreaterThan(0);
        expect(figures.wal.samples.at(-1)!.lagBytes).not.toBeNull();
        expect(figures.wal.samples.at(-1)!.lagSeconds).not.toBeNull();
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
