import { afterAll, beforeAll } from 'bun:test';
import { SQL } from 'bun';
import { migratePostgres } from '@/db/pg/migrate';
import {
  createTestDatabase,
  POSTGRES_ADMIN_URL,
  type TestDatabase,
  testDatabaseUrl,
} from './postgres';
import { tcpProxy } from './tcp-proxy';

/** Protocol codes of the untyped messages that open a connection. */
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

/** What one connection has sent so far, parsed into frontend messages. */
interface ConnectionState {
  pending: Uint8Array;
  /** The startup message has passed: every later message starts with its type byte. */
  typed: boolean;
}

/**
 * Counts what clients send to PostgreSQL through a relay of its own: every
 * statement is one `Q` (simple query) or ends with one `S` (Sync, the end of
 * an extended-protocol query), each of which the client waits on; `P`
 * (Parse) is a statement prepared. `url(name)` addresses test database
 * `name` through the relay. Counts PostgreSQL's own protocol, so it sees
 * every statement whatever sent it (drizzle, Bun's client, a transaction's
 * BEGIN and COMMIT).
 */
export function pgWireCounter() {
  const states = new WeakMap<object, ConnectionState>();
  const counts = { statements: 0, parses: 0 };
  /** The text of each statement parsed or queried, its first 100 characters (for messages). */
  const texts: string[] = [];
  const admin = new URL(POSTGRES_ADMIN_URL);

  const take = (state: ConnectionState) => {
    for (;;) {
      const { pending } = state;
      const view = new DataView(pending.buffer, pending.byteOffset, pending.byteLength);
      if (!state.typed) {
        if (pending.byteLength < 8) return;
        const length = view.getInt32(0);
        if (pending.byteLength < length) return;
        const code = view.getInt32(4);
        state.typed = code !== SSL_REQUEST && code !== GSS_REQUEST;
        state.pending = pending.subarray(length);
        continue;
      }
      if (pending.byteLength < 5) return;
      const length = view.getInt32(1);
      if (pending.byteLength < 1 + length) return;
      const type = String.fromCharCode(pending[0]!);
      if (type === 'Q' || type === 'S') counts.statements++;
      if (type === 'P') counts.parses++;
      if (type === 'P' || type === 'Q') {
        const body = pending.subarray(5, 1 + length);
        const from = type === 'P' ? body.indexOf(0) + 1 : 0;
        texts.push(
          new TextDecoder().decode(body.subarray(from, body.indexOf(0, from))).slice(0, 100),
        );
      }
      state.pending = pending.subarray(1 + length);
    }
  };

  const proxy = tcpProxy(
    { host: admin.hostname, port: Number(admin.port || 5432) },
    {
      onClientBytes(connection, chunk) {
        let state = states.get(connection);
        if (!state) {
          state = { pending: new Uint8Array(0), typed: false };
          states.set(connection, state);
        }
        const joined = new Uint8Array(state.pending.byteLength + chunk.byteLength);
        joined.set(state.pending);
        joined.set(chunk, state.pending.byteLength);
        state.pending = joined;
        take(state);
      },
    },
  );

  return {
    /** The address of test database `name` through the relay. */
    url(name: string): string {
      const url = new URL(testDatabaseUrl(name));
      url.hostname = '127.0.0.1';
      url.port = String(proxy.port);
      return url.toString();
    },
    /** Statements (and Parse messages) sent since the relay started. */
    counts: () => ({ ...counts }),
    /** The statements parsed or queried so far, their first 100 characters. */
    texts: () => [...texts],
    /** Statements sent while `work` runs (everything else quiet). */
    async statementsDuring(work: () => Promise<unknown>): Promise<number> {
      const before = counts.statements;
      await work();
      return counts.statements - before;
    },
    close: () => proxy.close(),
  };
}

/**
 * A migrated database for the `describe` it is called in, reached through a
 * `pgWireCounter`: made before its tests, dropped after them. `pool()` is a
 * pool of `max` connections to it through the counter.
 */
export function countedDatabaseForSuite(max: number) {
  const wire = pgWireCounter();
  let database: TestDatabase | undefined;
  let pool: SQL | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    await migratePostgres(database.url);
    pool = new SQL(wire.url(database.name), { max });
  });
  afterAll(async () => {
    await pool?.close({ timeout: 0 });
    wire.close();
    await database?.drop();
  });
  return {
    wire,
    pool: () => {
      if (!pool) throw new Error('the database is made before the tests of its describe');
      return pool;
    },
  };
}
