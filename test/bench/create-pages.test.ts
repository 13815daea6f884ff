import { describe, expect } from 'bun:test';
import { join } from 'node:path';
import { sqliteOnly } from '../support/postgres-mode';

const root = join(import.meta.dir, '..', '..');

/** `bench:create-pages` on a tiny file: its table, parsed into frames and distinct pages per b-tree. */
function run(...args: string[]) {
  const done = Bun.spawnSync(
    [process.execPath, 'bench/create-pages.ts', '--until', '200', '--batches', '5', ...args],
    { cwd: root, stdout: 'pipe', stderr: 'pipe' },
  );
  expect(done.stderr.toString()).toBe('');
  expect(done.exitCode).toBe(0);
  const rows = new Map<string, number[]>();
  for (const line of done.stdout.toString().split('\n').slice(2)) {
    const [name, ...figures] = line.trim().split(/\s+/);
    if (name && figures.length === 3) rows.set(name, figures.map(Number));
  }
  return rows;
}

describe('npm run bench:create-pages', () => {
  sqliteOnly.test(
    'it reads a SQLite file',
    "names the service's WAL pages by b-tree and sums them, copies never more than frames",
    () => {
      const rows = run();
      const [frames, in1000, in4000] = rows.get('total')!;
      expect(frames).toBeGreaterThan(0);
      // A page rewritten by many commits is copied once: never more copies than frames.
      expect(in1000).toBeLessThanOrEqual(frames!);
      expect(in4000).toBeLessThanOrEqual(in1000!);
      for (const btree of ['properties', 'units', 'events', 'properties_owner_idx']) {
        expect(rows.get(btree)?.[0]).toBeGreaterThan(0);
      }
      const named = [...rows].filter(([name]) => name !== 'total');
      const sum = named.reduce((total, [, [f]]) => total + f!, 0);
      expect(Math.abs(sum - frames!)).toBeLessThan(0.05 * named.length);
    },
    60_000,
  );

  sqliteOnly.test(
    'it reads a SQLite file',
    "--reference measures the reference's tables, which write no events",
    () => {
      const rows = run('--reference', '--batches', '20');
      expect(rows.get('total')![0]).toBeGreaterThan(0);
      expect(rows.get('properties_owner_idx')![0]).toBeGreaterThan(0);
      expect(rows.has('events')).toBe(false);
    },
    60_000,
  );
});
