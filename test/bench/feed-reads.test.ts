import { describe, expect } from 'bun:test';
import { join } from 'node:path';
import { sqliteOnly } from '../support/postgres-mode';

const root = join(import.meta.dir, '..', '..');

describe('npm run bench:feed-reads', () => {
  sqliteOnly.test(
    'it reads a SQLite file',
    'times the three reads on both layouts and prints their ratio',
    () => {
      const done = Bun.spawnSync(
        [
          process.execPath,
          'bench/feed-reads.ts',
          '--events',
          '2000',
          '--owners',
          '10',
          '--reads',
          '20',
        ],
        { cwd: root, stdout: 'pipe', stderr: 'pipe' },
      );
      expect(done.stderr.toString()).toBe('');
      expect(done.exitCode).toBe(0);
      const lines = done.stdout.toString().trim().split('\n');
      expect(lines[0]).toStartWith('2,000 events, 10 owners');
      const rows = lines.slice(2).map((line) => line.split(/\s{2,}/));
      expect(rows.map(([name]) => name)).toEqual([
        'a page of 100 from the start',
        'a page of 100 from the middle',
        'caught up: nothing new',
      ]);
      for (const [, merged, byOwner, ratio] of rows) {
        expect(Number(merged)).toBeGreaterThan(0);
        expect(Number(byOwner)).toBeGreaterThan(0);
        expect(Number(ratio)).toBeCloseTo(Number(merged) / Number(byOwner), 0);
      }
    },
    60_000,
  );
});
