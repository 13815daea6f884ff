import { describe, expect, test } from 'bun:test';
import { join, resolve } from 'node:path';
import { parseConfig } from '@/config';
import { watchedVolumes } from '@/storage/volumes';
import { tempDir } from '../support/harness';

describe('the file systems the service watches', () => {
  test("SQLite: the database's folder, BACKUP_DIR and a file:// replica's folder", () => {
    const dir = tempDir();
    const config = parseConfig({
      DATABASE_PATH: join(dir, 'data', 'app.db'),
      BACKUP_DIR: join(dir, 'backups'),
      REPLICA_URL: `file://${join(dir, 'replica')}`,
    });
    expect(watchedVolumes(config, true)).toEqual([
      { name: 'database', path: resolve(dir, 'data') },
      { name: 'backups', path: resolve(dir, 'backups') },
      { name: 'replica', path: resolve(dir, 'replica') },
    ]);
  });

  test('a replica elsewhere than this machine and an in-memory database are not watched', () => {
    const config = parseConfig({ DATABASE_PATH: ':memory:', BACKUP_DIR: '/var/backups/listings' });
    expect(watchedVolumes(config, true)).toEqual([
      { name: 'backups', path: '/var/backups/listings' },
    ]);
  });

  test("PostgreSQL: none (its storage is the server's)", () => {
    const config = parseConfig({ DATABASE_PATH: join(tempDir(), 'app.db') });
    expect(watchedVolumes(config, false)).toEqual([]);
  });
});
