import { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import {
  type Combinable,
  flushGroupCommit,
  GroupCommit,
  groupCommitOf,
} from '@/db/sqlite/group-commit';
import { tempDir } from '../support/harness';

/** A file database (WAL, as in production) and a second connection that sees only commits. */
function files() {
  const path = join(tempDir('group-commit-'), 'db.sqlite');
  const writer = new Database(path, { create: true, strict: true });
  writer.exec('PRAGMA journal_mode = WAL');
  writer.exec('PRAGMA busy_timeout = 0');
  writer.exec('CREATE TABLE t (seq INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)');
  const reader = new Database(path, { readonly: true });
  const committed = () =>
    reader
      .query<{ name: string }, []>('SELECT name FROM t ORDER BY seq')
      .all()
      .map((row) => row.name);
  const insert = (name: string) => () =>
    writer.query('INSERT INTO t (name) VALUES (?) RETURNING seq').get(name) as { seq: number };
  return { path, writer, reader, committed, insert };
}

/** A scheduler the test runs by hand: no timers. */
function manualSchedule() {
  const queued: (() => void)[] = [];
  const schedule = (flush: () => void) => void queued.push(flush);
  const runAll = () => {
    for (const flush of queued.splice(0)) flush();
  };
  return { schedule, runAll, queued };
}

const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

describe('GroupCommit', () => {
  describe('happy', () => {
    test('writes submitted together share one transaction, committed on one scheduled flush', async () => {
      const { writer, committed, insert } = files();
      const manual = manualSchedule();
      const group = new GroupCommit(writer, { schedule: manual.schedule });
      const seenByOthers: string[][] = [];
      const results = [
        group.run(insert('a')),
        group.run(insert('b')),
        group.run(() => {
          // The earlier writes have run but are not yet visible elsewhere: same open transaction.
          seenByOthers.push(committed());
          expect(writer.inTransaction).toBe(true);
          return insert('c')();
        }),
      ];
      expect(manual.queued).toHaveLength(1);
      expect(group.pending).toBe(3);
      expect(committed()).toEqual([]);
      manual.runAll();
      expect(seenByOthers).toEqual([[]]);
      expect(await Promise.all(results)).toEqual([{ seq: 1 }, { seq: 2 }, { seq: 3 }]);
      expect(committed()).toEqual(['a', 'b', 'c']);
      expect(group.pending).toBe(0);
    });

    test('a promise settles only after COMMIT: its write is visible to another connection by then', async () => {
      const { writer, committed, insert } = files();
      const manual = manualSchedule();
      const group = new GroupCommit(writer, { schedule: manual.schedule });
      let settled = false;
      const seen = group.run(insert('a')).then(() => {
        settled = true;
        return committed();
      });
      await Promise.resolve();
      expect(settled).toBe(false);
      manual.runAll();
      expect(await seen).toEqual(['a']);
    });

    test('order is kept: writes run and settle in submission order', async () => {
      const { writer, committed, insert } = files();
      const manual = manualSchedule();
      const group = new GroupCommit(writer, { schedule: manual.schedule });
      const order: string[] = [];
      const names = ['e', 'd', 'c', 'b', 'a'];
      const all = names.map((name) =>
        group.run(insert(name)).then(() => {
          order.push(name);
        }),
      );
      manual.runAll();
      await Promise.all(all);
      expect(order).toEqual(names);
      expect(committed()).toEqual(names);
    });

    test('the default schedule flushes on the next macrotask', async () => {
      const { writer, committed, insert } = files();
      const group = new GroupCommit(writer);
      const results = await Promise.all([group.run(insert('a')), group.run(insert('b'))]);
      expect(results).toEqual([{ seq: 1 }, { seq: 2 }]);
      expect(committed()).toEqual(['a', 'b']);
    });

    test('maxBatch: a full batch is committed at once, the rest on the next flush', async () => {
      const { writer, committed, insert } = files();
      const manual = manualSchedule();
      const group = new GroupCommit(writer, { schedule: manual.schedule, maxBatch: 2 });
      const first = [group.run(insert('a')), group.run(insert('b'))];
      expect(committed()).toEqual(['a', 'b']);
      const third = group.run(insert('c'));
      expect(committed()).toEqual(['a', 'b']);
      manual.runAll();
      await Promise.all([...first, third]);
      expect(committed()).toEqual(['a', 'b', 'c']);
    });

    test('flush() (shutdown) commits what is queued without waiting for the schedule', async () => {
      const { committed, path } = files();
      const { openDatabase } = await import('@/db/sqlite/client');
      const db = openDatabase(path);
      const write = groupCommitOf(db).run(() =>
        db.$client.query("INSERT INTO t (name) VALUES ('queued')").run(),
      );
      expect(groupCommitOf(db)).toBe(groupCommitOf(db));
      flushGroupCommit(db);
      expect(committed()).toEqual(['queued']);
      await write;
      db.$client.close();
    });
  });

  describe('combinable writes', () => {
    /** Inserts names; `many` in one multi-row statement, and the calls are recorded. */
    function namesKind(writer: Database) {
      const calls: string[][] = [];
      const kind: Combinable<string, number> = {
        one: (name) => {
          calls.push([name]);
          return (
            writer.query('INSERT INTO t (name) VALUES (?) RETURNING seq').get(name) as {
              seq: number;
            }
          ).seq;
        },
        many: (names) => {
          calls.push(names);
          const values = names.map(() => '(?)').join(', ');
          return writer
            .query<{ seq: number }, string[]>(`INSERT INTO t (name) VALUES ${values} RETURNING seq`)
            .all(...names)
            .map((row) => row.seq);
        },
      };
      return { kind, calls };
    }

    test('consecutive writes of one kind run as one many() call; a plain write splits them', async () => {
      const { writer, committed, insert } = files();
      const manual = manualSchedule();
      const group = new GroupCommit(writer, { schedule: manual.schedule });
      const { kind, calls } = namesKind(writer);
      const results = [
        group.submit(kind, 'a'),
        group.submit(kind, 'b'),
        group.run(insert('plain')),
        group.submit(kind, 'c'),
        group.submit(kind, 'd'),
      ];
      manual.runAll();
      expect(await Promise.all(results)).toEqual([1, 2, { seq: 3 }, 4, 5]);
      expect(calls).toEqual([
        ['a', 'b'],
        ['c', 'd'],
      ]);
      expect(committed()).toEqual(['a', 'b', 'plain', 'c', 'd']);
    });

    test('when many() fails, each runs alone: only the failing one rejects, nothing half-written', async () => {
      const { writer, committed } = files();
      const manual = manualSchedule();
      const group = new GroupCommit(writer, { schedule: manual.schedule });
      const { kind, calls } = namesKind(writer);
      const results = ['a', 'b', 'a', 'c'].map((name) => settle(group.submit(kind, name)));
      manual.runAll();
      const outcomes = await Promise.all(results);
      expect(calls).toEqual([['a', 'b', 'a', 'c'], ['a'], ['b'], ['a'], ['c']]);
      expect(outcomes.map((o) => o.ok)).toEqual([true, true, false, true]);
      expect(String((outcomes[2] as { error: unknown }).error)).toContain('UNIQUE');
      expect(committed()).toEqual(['a', 'b', 'c']);
    });
  });

  describe('error', () => {
    test('a failing write rejects alone, leaves nothing behind, and the others commit', async () => {
      const { writer, committed, insert } = files();
      const manual = manualSchedule();
      const group = new GroupCommit(writer, { schedule: manual.schedule });
      const failure = new Error('refused');
      const results = [
        group.run(insert('a')),
        group.run(() => {
          insert('half-written')();
          throw failure;
        }),
        group.run(insert('a')), // UNIQUE violation: SQLite's own error
        group.run(insert('c')),
      ].map(settle);
      manual.runAll();
      const [a, failed, duplicate, c] = await Promise.all(results);
      expect(a).toEqual({ ok: true, value: { seq: 1 } });
      expect(failed).toEqual({ ok: false, error: failure });
      expect(duplicate?.ok).toBe(false);
      expect(String((duplicate as { error: unknown }).error)).toContain('UNIQUE');
      expect(c).toEqual({ ok: true, value: { seq: 2 } });
      expect(committed()).toEqual(['a', 'c']);
    });

    test('a write that ends the transaction fails the uncommitted writes before it; later ones commit', async () => {
      const { writer, committed, insert } = files();
      const manual = manualSchedule();
      const group = new GroupCommit(writer, { schedule: manual.schedule });
      const ioError = new Error('disk I/O error');
      const results = [
        group.run(insert('a')),
        group.run(() => {
          // What SQLite does on an I/O error or a full disk: the whole transaction is gone.
          writer.exec('ROLLBACK');
          throw ioError;
        }),
        group.run(insert('c')),
      ].map(settle);
      manual.runAll();
      const outcomes = await Promise.all(results);
      expect(outcomes.map((o) => o.ok)).toEqual([false, false, true]);
      expect(outcomes[0]).toEqual({ ok: false, error: ioError });
      expect(committed()).toEqual(['c']);
    });

    test('a busy database (another writer) rejects the whole batch and writes nothing', async () => {
      const { writer, path, committed, insert } = files();
      const other = new Database(path);
      other.exec('BEGIN IMMEDIATE');
      const manual = manualSchedule();
      const group = new GroupCommit(writer, { schedule: manual.schedule });
      const results = [group.run(insert('a')), group.run(insert('b'))].map(settle);
      manual.runAll();
      const outcomes = await Promise.all(results);
      expect(outcomes.map((o) => o.ok)).toEqual([false, false]);
      expect(String((outcomes[0] as { error: unknown }).error)).toContain('locked');
      other.exec('ROLLBACK');
      expect(writer.inTransaction).toBe(false);
      expect(committed()).toEqual([]);
      const retried = group.run(insert('a'));
      manual.runAll();
      expect(await retried).toEqual({ seq: 1 });
    });
  });
});
