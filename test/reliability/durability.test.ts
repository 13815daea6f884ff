import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { openDatabase } from '@/db/sqlite/client';
import { tempDir } from '../support/harness';

// The crash test (test/slow/crash.slow.ts) shows the effect; this pins the settings it rests on.
test('SQLite runs in WAL mode with synchronous=NORMAL, foreign keys on and a busy timeout', () => {
  const db = openDatabase(join(tempDir(), 'app.db'));
  const pragma = (name: string) => Object.values(db.$client.query(`PRAGMA ${name}`).get()!)[0];
  expect(pragma('journal_mode')).toBe('wal');
  // 1 = NORMAL: in WAL mode every commit survives a process crash (power loss may lose the last ones).
  expect(pragma('synchronous')).toBe(1);
  expect(pragma('foreign_keys')).toBe(1);
  expect(pragma('busy_timeout')).toBe(5000);
  db.$client.close();
});
