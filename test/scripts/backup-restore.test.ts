import { describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/harness';
import { runScript } from '../support/script';

/** A URL nothing listens on: the commands must refuse before connecting. */
const DATABASE_URL = 'postgres://ops:secret-pw@127.0.0.1:1/app';

describe('backup and restore with DATABASE_URL set', () => {
  test.each([
    ['backup.ts', [], 'backup', 'pg_dump'],
    ['restore.ts', ['backup.db.gz'], 'restore', 'pg_restore'],
  ])('%s refuses in one line pointing at the PostgreSQL tool', async (script, args, name, tool) => {
    const databasePath = join(tempDir(), 'app.db');
    const run = await runScript(script, args, {
      ...process.env,
      DATABASE_PATH: databasePath,
      DATABASE_URL,
      JWT_SECRET: '',
    });
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `${name}: DATABASE_URL is set, so the data is in PostgreSQL, not in the SQLite file this command copies; use ${tool}`,
    });
    expect(existsSync(databasePath)).toBe(false);
  });
});
