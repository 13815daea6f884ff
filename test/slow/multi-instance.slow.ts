import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { SQL } from 'bun';
import { TokenService } from '@/auth/tokens';
import { tempDir } from '../support/harness';
import {
  createTestDatabase,
  pgSuite,
  postgresAvailable,
  type TestDatabase,
} from '../support/postgres';
import { ownRedisServer, ownRedisTitle, redisServerInstalled } from '../support/redis';
import {
  employeeToken,
  freePort,
  JWT_SECRET,
  pool,
  randomProperty,
  seeded,
  startServer,
} from './support';

/**
 * Three real server processes on loopback ports sharing one database and
 * one test-owned redis-server, as behind a reverse proxy: one limit for all
 * of them, no stale read across them, one run per job tick, and no
 * acknowledged write lost when one is killed with SIGKILL. The suite runs
 * once on a SQLite file and once on a PostgreSQL database.
 */

const INSTANCES = 3;
const CUSTOMER_LIMIT = 120;
/** events-prune is cheap and safe to run often: every 2 seconds here. */
const FREQUENT_JOB = 'events-prune';

type Server = Awaited<ReturnType<typeof startServer>>;

/** The id of a created property, from its Location (`/properties/<id>`). */
const idOf = (created: Response) => created.headers.get('location')!.split('/').pop()!;

/** The database the instances share, made fresh for one run of the suite. */
interface Backend {
  /** Its name in `/health`'s `backends`. */
  name: 'sqlite' | 'postgresql';
  /** Its describe's title: what the instances share, and why it is skipped when it is. */
  title: string;
  skip: boolean;
  /** Makes the database; the environment that points an instance at it. */
  open(): Promise<Record<string, string>>;
  /** The rows of a read-only query on it. */
  query<Row>(sql: string): Promise<Row[]>;
  close(): Promise<void>;
}

function sqliteBackend(): Backend {
  let path = '';
  return {
    name: 'sqlite',
    title: 'one SQLite file',
    skip: false,
    async open() {
      path = join(tempDir('listings-multi-'), 'app.db');
      return { DATABASE_PATH: path };
    },
    async query<Row>(sql: string) {
      const db = new Database(path, { readonly: true });
      try {
        return db.query<Row, []>(sql).all();
      } finally {
        db.close();
      }
    },
    async close() {},
  };
}

function postgresBackend(): Backend {
  let database: TestDatabase | undefined;
  return {
    name: 'postgresql',
    title: pgSuite('one PostgreSQL database'),
    skip: !postgresAvailable,
    async open() {
      database = await createTestDatabase();
      return { DATABASE_URL: database.url };
    },
    async query<Row>(sql: string) {
      const client = new SQL(database!.url, { max: 1 });
      try {
        return (await client.unsafe(sql)) as Row[];
      } finally {
        await client.close();
      }
    },
    // Ends what the killed instances left connected.
    close: async () => database?.drop(),
  };
}

describe.skipIf(!redisServerInstalled)(ownRedisTitle('several instances, one Redis'), () => {
  let redis: Awaited<ReturnType<typeof ownRedisServer>>;
  beforeAll(async () => {
    redis = await ownRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  for (const backend of [sqliteBackend(), postgresBackend()]) {
    describe.skipIf(backend.skip)(backend.title, () => suite(backend, () => redis.url));
  }
});

function suite(backend: Backend, redisUrl: () => string) {
  const servers: Server[] = [];
  const bases: string[] = [];
  let database: Record<string, string> = {};

  afterAll(async () => {
    for (const server of servers) server.kill('SIGKILL');
    await Promise.all(servers.map((server) => server.exited));
    await backend.close();
  });

  const env = () => ({
    ...database,
    JWT_SECRET,
    REDIS_URL: redisUrl(),
    // Each run its own keys: the other run's limits and leases are not this one's.
    REDIS_PREFIX: `multi-${backend.name}:`,
    WORKERS: 'on',
    JOB_EVENTS_PRUNE_CRON: '*/2 * * * * *',
    LOG_LEVEL: 'error',
  });

  test('three instances start on one database and one Redis', async () => {
    database = await backend.open();
    // The first migrates the new database; the others find it up to date.
    for (let i = 0; i < INSTANCES; i++) {
      const port = freePort();
      servers.push(await startServer(port, env()));
      bases.push(`http://127.0.0.1:${port}`);
    }
    for (const base of bases) {
      const health = await (await fetch(`${base}/health`)).json();
      expect(health.backends).toEqual({ [backend.name]: 'ok', redis: 'ok' });
    }
  });

  test('a burst of 3× the limit spread over every instance admits exactly the limit', async () => {
    const token = await new TokenService(JWT_SECRET).issue('multi-customer', 'customer', 3600);
    const burst = 3 * CUSTOMER_LIMIT;
    const statuses: number[] = [];
    await pool(burst, 60, async (i) => {
      const res = await fetch(`${bases[i % INSTANCES]}/api/v1/c/transactions`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    });
    const admitted = statuses.filter((status) => status === 200).length;
    console.log(`${backend.name}: admitted/burst: ${admitted}/${burst}`);
    expect(admitted).toBe(CUSTOMER_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(burst - CUSTOMER_LIMIT);
  });

  test('a write on one instance is read at once on another: no stale read', async () => {
    const token = await employeeToken();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const random = seeded(21);
    let stale = 0;
    const rounds = 60;
    for (let i = 0; i < rounds; i++) {
      const writer = bases[i % INSTANCES]!;
      const reader = bases[(i + 1) % INSTANCES]!;
      const body = randomProperty(random, `Multi street ${i}`);
      const created = await fetch(`${writer}/listings/properties`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      expect(created.status).toBe(201);
      await created.arrayBuffer();
      const id = idOf(created);
      // Read first on the reader (it caches the answer), then change it on the writer.
      const first = await fetch(`${reader}/listings/properties/${id}`, { headers });
      if (first.status !== 200) stale++;
      await first.arrayBuffer();
      const archived = await fetch(`${writer}/listings/properties/${id}`, {
        method: 'DELETE',
        headers,
        body: '{}',
      });
      expect(archived.status).toBe(204);
      const after = await fetch(`${reader}/listings/properties/${id}`, { headers });
      const read = (await after.json()) as { archived?: boolean };
      if (after.status !== 200 || read.archived !== true) stale++;
    }
    console.log(`${backend.name}: stale reads: ${stale}/${2 * rounds}`);
    expect(stale).toBe(0);
  });

  test('each job tick runs on one instance only', async () => {
    // Some ticks of a 2-second job (and of webhook-delivery every 10 s).
    await Bun.sleep(7_000);
    // Casts: PostgreSQL counts in bigint, which its client hands back as a string.
    const perTick = await backend.query<{ job: string; runs: number }>(
      `SELECT job, tick, CAST(count(*) AS integer) AS runs
         FROM job_runs WHERE tick IS NOT NULL GROUP BY job, tick`,
    );
    const [ranBy] = await backend.query<{ instances: number }>(
      `SELECT CAST(count(DISTINCT instance) AS integer) AS instances
         FROM job_runs WHERE job = '${FREQUENT_JOB}' AND tick IS NOT NULL`,
    );
    const frequent = perTick.filter((row) => row.job === FREQUENT_JOB);
    const most = Math.max(...perTick.map((row) => row.runs));
    console.log(
      `${backend.name}: job runs per tick: at most ${most} over ${perTick.length} ticks ` +
        `(${frequent.length} ticks of ${FREQUENT_JOB}, run by ${ranBy?.instances} instance(s))`,
    );
    expect(frequent.length).toBeGreaterThanOrEqual(2);
    expect(most).toBe(1);
  });

  test('calendar-window usage survives a restart of every instance', async () => {
    const staff = await employeeToken();
    const json = { authorization: `Bearer ${staff}`, 'content-type': 'application/json' };
    const plan = await fetch(`${bases[0]}/api/v1/admin/plans`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'Daily', slug: 'multi-daily', limits: { day: 50 } }),
    });
    expect(plan.status).toBe(201);
    const { id } = (await plan.json()) as { id: number };
    const assigned = await fetch(`${bases[1]}/api/v1/admin/customers/multi-daily/plan`, {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ planId: id }),
    });
    expect(assigned.status).toBe(204);
    const token = await new TokenService(JWT_SECRET).issue('multi-daily', 'customer', 3600);
    const auth = { authorization: `Bearer ${token}` };
    for (let i = 0; i < 7; i++) {
      const res = await fetch(`${bases[i % INSTANCES]}/api/v1/c/transactions`, { headers: auth });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }

    for (const server of servers.splice(0)) {
      server.kill('SIGTERM');
      await server.exited;
    }
    bases.length = 0;
    for (let i = 0; i < INSTANCES; i++) {
      const port = freePort();
      servers.push(await startServer(port, env()));
      bases.push(`http://127.0.0.1:${port}`);
    }
    const report = await fetch(`${bases[2]}/api/v1/tokens/limits`, { headers: auth });
    const body = (await report.json()) as {
      rate_limits: { limits: { window: string; used: number }[] };
    };
    const day = body.rate_limits.limits.find((window) => window.window === 'day');
    console.log(`${backend.name}: day window used after restarting every instance: ${day?.used}/7`);
    expect(day?.used).toBe(7);
  });

  test('SIGKILL of one instance mid-burst of writes: every acknowledged write is there', async () => {
    const token = await employeeToken();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const random = seeded(33);
    const total = 300;
    const acknowledged: string[] = [];
    let answered = 0;
    const victim = servers[INSTANCES - 1]!;
    await pool(total, 12, async (i) => {
      if (answered === 100 && victim.exitCode === null) victim.kill('SIGKILL');
      // The killed instance's share goes on being sent: the proxy has not noticed yet.
      const base = bases[i % INSTANCES]!;
      try {
        const res = await fetch(`${base}/listings/properties`, {
          method: 'POST',
          headers,
          body: JSON.stringify(randomProperty(random, `Kill street ${i}`)),
        });
        await res.arrayBuffer();
        if (res.status === 201) acknowledged.push(idOf(res));
      } catch {
        // The connection died with the instance: not acknowledged.
      }
      answered++;
    });
    await victim.exited;
    const survivor = bases[0]!;
    let lost = 0;
    for (const id of acknowledged) {
      const res = await fetch(`${survivor}/listings/properties/${id}`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) lost++;
    }
    console.log(
      `${backend.name}: acknowledged writes lost: ${lost}/${acknowledged.length} (of ${total} sent, one instance killed)`,
    );
    expect(victim.signalCode).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThan(100);
    expect(lost).toBe(0);
  });
}
