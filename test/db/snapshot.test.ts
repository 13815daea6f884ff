import { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { readSnapshot } from '@/db/sqlite/snapshot';
import { tempDir } from '../support/harness';

function twoConnections() {
  const path = join(tempDir('listings-snapshot-'), 'app.db');
  const reader = new Database(path, { create: true });
  reader.exec('PRAGMA journal_mode = WAL');
  reader.exec('CREATE TABLE t (n INTEGER)');
  reader.exec('INSERT INTO t VALUES (1), (2)');
  return { reader, writer: new Database(path) };
}

const count = (db: Database) => db.query<{ n: number }, []>('SELECT count(*) AS n FROM t').get()!.n;

describe('readSnapshot', () => {
  test('its statements see one snapshot while another connection commits between them', () => {
    const { reader, writer } = twoConnections();
    const seen = readSnapshot(reader, () => {
      const before = count(reader);
      writer.exec('INSERT INTO t VALUES (3)');
      return [before, count(reader)];
    });
    expect(seen).toEqual([2, 2]);
    expect(reader.inTransaction).toBe(false);
    expect(count(reader)).toBe(3);
  });

  test('a read that throws ends its transaction and throws on', () => {
    const { reader } = twoConnections();
    expect(() =>
      readSnapshot(reader, () => {
        count(reader);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(reader.inTransaction).toBe(false);
  });

  test('inside an open transaction it reads in that one, uncommitted writes included', () => {
    const { reader } = twoConnections();
    reader.exec('BEGIN');
    reader.exec('INSERT INTO t VALUES (4)');
    expect(readSnapshot(reader, () => count(reader))).toBe(3);
    expect(reader.inTransaction).toBe(true);
    reader.exec('ROLLBACK');
    expect(count(reader)).toBe(2);
  });
});
