/**
 * The scenarios of `bun run bench:noisy-neighbours` and
 * `test/slow/noisy-neighbours.slow.ts`: one tenant (the hostile) works
 * inside every documented limit while another (the victim) works normally,
 * first alone, then beside it. Each pattern answers the victim's figures,
 * quiet and under attack, what the hostile got, and its targets, met or
 * not. Everything runs against the real server on 127.0.0.1, on a SQLite
 * file or a fresh PostgreSQL database (with Redis when it answers), bounded
 * in count and time.
 */
import { Database } from 'bun:sqlite';
import { join } from 'node:path';
import { SQL } from 'bun';
import { TokenService } from '@/auth/tokens';
import { EVENTS_APPEND_LOCK } from '@/events/postgres-outbox';
import { propertyBody } from '../test/listings/support';
import { freePort, startServer } from '../test/slow/support';
import { tempDir } from '../test/support/harness';
import { createTestDatabase, postgresAvailable } from '../test/support/postgres';
import { redisEnv, redisSkipReason } from '../test/support/redis';
import { hangingReceiver } from '../test/webhooks/fairness-support';

export const PATTERNS = ['hasher', 'long-polls', 'webhooks', 'payloads', 'walk'] as const;
export type Pattern = (typeof PATTERNS)[number];
export type StoreName = 'sqlite' | 'postgres';

/** The sizes of a run; `scaled` shrinks the ones that only make it longer. */
export interface Sizes {
  /** Seconds of each victim phase (quiet, then under attack). */
  seconds: number;
  /** Parallel sign-in loops of the hostile. */
  signInLoops: number;
  /** Events of the hostile's own, seeded before its long polls. */
  hostileEvents: number;
  /** Long polls the hostile keeps open. */
  polls: number;
  /** Hostile webhook customers, endpoints each, and due deliveries among them. */
  webhookCustomers: number;
  endpointsPerCustomer: number;
  deliveries: number;
  /** The victim's webhook deliveries timed, quiet and under attack. */
  deliveriesTimed: number;
  /** 64 KiB overwrites of one property's additional data, and concurrent feed readers. */
  overwrites: number;
  feedReaders: number;
  /** Sort-field changes the hostile makes during the victim's walk. */
  sortChanges: number;
}

export const FULL_SIZES: Sizes = {
  seconds: 10,
  signInLoops: 8,
  hostileEvents: 100_000,
  polls: 150,
  webhookCustomers: 5,
  endpointsPerCustomer: 20,
  deliveries: 60_000,
  deliveriesTimed: 5,
  overwrites: 250,
  feedReaders: 3,
  sortChanges: 2_100,
};

/**
 * `FULL_SIZES` with the seeded volumes times `scale` (0 < scale ≤ 1). The
 * counts that decide an outcome stay: 250 overwrites of 64 KiB are four
 * times the storage target, and 2,100 sort changes are past the walk's
 * 2,000; the parallelism is the hostile's limit, not a size.
 */
export function scaled(scale: number, seconds = FULL_SIZES.seconds): Sizes {
  const times = (n: number, least: number) => Math.max(least, Math.round(n * scale));
  return {
    ...FULL_SIZES,
    seconds,
    hostileEvents: times(FULL_SIZES.hostileEvents, 1_000),
    deliveries: times(FULL_SIZES.deliveries, 1_000),
    deliveriesTimed: times(FULL_SIZES.deliveriesTimed, 3),
  };
}

/** The limits the targets check (docs/limits-and-quotas.md). */
export const TARGETS = {
  webhookDeliveryMs: 5_000,
  growthBytes: 4 * 1024 * 1024,
  pageBytes: 4 * 1024 * 1024,
};
/** How long the bench waits for one webhook delivery before calling it lost. */
export const DELIVERY_GIVE_UP_MS = 30_000;

const SECRET = 'noisy-neighbours-secret-0123456789-abcdefghij';
const tokens = new TokenService(SECRET);
const tokenOf = (sub: string, role: 'customer' | 'employee' = 'customer') =>
  tokens.issue(sub, role, 3600);
const root = join(import.meta.dir, '..');

// ---------------------------------------------------------------- figures

/** One request's outcome: its status (0: no answer) and its time. */
export interface Sample {
  status: number;
  ms: number;
}

/** What a run of requests came to. */
export interface Summary {
  requests: number;
  /** Share of 2xx answers, 0..1. */
  success: number;
  /** Non-2xx answers by status (0: the connection failed). */
  failures: Record<string, number>;
  p50: number;
  p99: number;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

export function summarize(samples: readonly Sample[]): Summary {
  const failures: Record<string, number> = {};
  for (const { status } of samples) {
    if (status < 200 || status > 299) failures[status] = (failures[status] ?? 0) + 1;
  }
  const failed = Object.values(failures).reduce((a, b) => a + b, 0);
  const times = samples.map((s) => s.ms);
  return {
    requests: samples.length,
    success: samples.length === 0 ? 1 : (samples.length - failed) / samples.length,
    failures,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
  };
}

/** Statuses by count, for what the hostile got. */
export type Tally = Record<string, number>;
const count = (tally: Tally, status: number) => {
  tally[status] = (tally[status] ?? 0) + 1;
};

export interface Target {
  /** What the slow suite looks it up by. */
  key:
    | 'victim-2xx'
    | 'victim-pace'
    | 'delivery-within-target'
    | 'delivery-arrives'
    | 'growth'
    | 'page'
    | 'walk';
  /** Whether it is a wall-clock timing (the slow suite asserts only those that are not). */
  timing?: true;
  name: string;
  met: boolean;
  /** The figure measured, in words. */
  value: string;
}

export interface PatternResult {
  pattern: Pattern;
  store: StoreName;
  /** What the victim did, in words. */
  victim: string;
  quiet: Summary;
  attacked: Summary;
  /** The hostile's requests by status (429s after a fix belong here: they are the hostile's). */
  hostile: Tally;
  /** Other figures (delivery times, sizes), name → words. */
  figures: Record<string, string>;
  targets: Target[];
}

/** A timed request; network failures are status 0. */
async function timed(
  url: string,
  init?: RequestInit,
): Promise<Sample & { body: string; retryAfter: string | null }> {
  const started = performance.now();
  try {
    const res = await fetch(url, init);
    const body = await res.text();
    const retryAfter = res.headers.get('retry-after');
    return { status: res.status, ms: performance.now() - started, body, retryAfter };
  } catch {
    return { status: 0, ms: performance.now() - started, body: '', retryAfter: null };
  }
}

/**
 * A hostile at its limits comes back when a 429 says it may (at most 10 s
 * later, so a phase ends on time) rather than spending the server's CPU on
 * refusals; a refusal for capacity (503) it retries at once, as an attacker
 * would.
 */
async function backOff(answer: { status: number; retryAfter: string | null }) {
  if (answer.status !== 429) return;
  const seconds = Number(answer.retryAfter ?? 1);
  await Bun.sleep(Math.min(10, Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000);
}

const bearer = (token: string, json = false): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  ...(json ? { 'content-type': 'application/json' } : {}),
});

/**
 * Runs `round()` every `intervalMs` (a closed loop: a slow round delays the
 * next, none overlap) for `seconds`, collecting its samples.
 */
async function steady(
  seconds: number,
  intervalMs: number,
  round: () => Promise<Sample[]>,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  const end = performance.now() + seconds * 1000;
  let next = performance.now();
  while (performance.now() < end) {
    samples.push(...(await round()));
    next += intervalMs;
    const wait = next - performance.now();
    if (wait > 0) await Bun.sleep(wait);
  }
  return samples;
}

/** `loops` async loops of `work` until `stop()`; resolves when all have ended. */
function loops(count: number, work: (loop: number) => Promise<void>) {
  let stopped = false;
  const done = Promise.all(
    Array.from({ length: count }, async (_, loop) => {
      while (!stopped) await work(loop);
    }),
  );
  return {
    stopped: () => stopped,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

// ---------------------------------------------------------------- the deployment

/** The real server on one store, with direct access to its database for seeding. */
export interface Deployment {
  store: StoreName;
  url: string;
  employee: string;
  /** Runs statements in one transaction on the service's database (`?` parameters on both). */
  seed(
    work: (run: (sql: string, params?: unknown[]) => Promise<void>) => Promise<void>,
  ): Promise<void>;
  /** One value of a query. */
  scalar(sql: string): Promise<number>;
  /** The database's size in bytes now (SQLite: pages in use, file and WAL; PostgreSQL: pg_database_size). */
  sizeBytes(): Promise<number>;
  /**
   * What the database keeps, in bytes: on SQLite `sizeBytes` (an overwrite
   * reuses the pages it frees at once); on PostgreSQL the size once the
   * dead row versions of overwritten additional data are removed, which
   * autovacuum otherwise frees for reuse by later writes.
   */
  keptBytes(): Promise<number>;
  /** Creates an account with a password through the operator's `user:create`. */
  createAccount(email: string, password: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the real server on `store`: a temp SQLite file, or a fresh
 * PostgreSQL test database (and the shared Redis under a prefix of its own
 * when it answers). Workers on; webhooks to plain-HTTP loopback allowed.
 */
export async function deploy(
  store: StoreName,
  env: Record<string, string> = {},
): Promise<Deployment> {
  const port = freePort();
  const base = {
    JWT_SECRET: SECRET,
    WORKERS: 'on',
    WEBHOOKS_ALLOW_HTTP: 'true',
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    // The bench speaks for several clients over loopback (X-Forwarded-For).
    TRUST_PROXY: 'true',
    PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'error',
    ...env,
  };
  const employee = await tokenOf('noisy-employee', 'employee');
  const createAccountWith =
    (databaseEnv: Record<string, string>) => async (email: string, password: string) => {
      const run = Bun.spawnSync(
        [
          process.execPath,
          'scripts/user-create.ts',
          '--email',
          email,
          '--role',
          'customer',
          '--password',
          password,
        ],
        { cwd: root, env: { ...process.env, ...base, ...databaseEnv }, stdin: 'ignore' },
      );
      if (run.exitCode !== 0) throw new Error(`user:create ${email}: ${run.stderr.toString()}`);
    };

  if (store === 'sqlite') {
    const path = join(tempDir('noisy-'), 'app.db');
    const server = await startServer(port, { ...base, DATABASE_PATH: path });
    const db = new Database(path);
    db.run('PRAGMA busy_timeout = 30000');
    const sizeBytes = async () => {
      const pages = (db.query('PRAGMA page_count').get() as { page_count: number }).page_count;
      const size = (db.query('PRAGMA page_size').get() as { page_size: number }).page_size;
      return pages * size;
    };
    return {
      store,
      url: `http://127.0.0.1:${port}`,
      employee,
      async seed(work) {
        // A transaction on bun:sqlite is synchronous: the statements are collected, then run in one.
        const statements: [string, unknown[]][] = [];
        await work(async (sql, params = []) => {
          statements.push([sql, params]);
        });
        db.transaction(() => {
          for (const [sql, params] of statements) db.prepare(sql).run(...(params as never[]));
        }).immediate();
      },
      async scalar(sql) {
        return Number(Object.values(db.query(sql).get() as Record<string, unknown>)[0]);
      },
      sizeBytes,
      keptBytes: sizeBytes,
      createAccount: createAccountWith({ DATABASE_PATH: path }),
      async stop() {
        db.close();
        server.kill('SIGTERM');
        await server.exited;
      },
    };
  }

  const database = await createTestDatabase();
  const redis = redisSkipReason ? {} : redisEnv();
  const server = await startServer(port, { ...base, ...redis, DATABASE_URL: database.url });
  const client = new SQL(database.url, { max: 2 });
  const scalar = async (sql: string) => {
    const [row] = (await client.unsafe(sql)) as Record<string, unknown>[];
    return Number(Object.values(row!)[0]);
  };
  // `?` placeholders become PostgreSQL's `$n`.
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  return {
    store,
    url: `http://127.0.0.1:${port}`,
    employee,
    async seed(work) {
      await client.begin(async (tx) => {
        // Seeded events are appended as the service appends them: under its lock, so ids commit in order.
        await tx.unsafe(`SELECT pg_advisory_xact_lock(${EVENTS_APPEND_LOCK})`);
        await work(async (sql, params = []) => {
          await tx.unsafe(numbered(sql), params as never[]);
        });
      });
    },
    scalar,
    sizeBytes: () => scalar('SELECT pg_database_size(current_database())'),
    async keptBytes() {
      await client.unsafe('VACUUM FULL property_additional_data');
      return scalar('SELECT pg_database_size(current_database())');
    },
    createAccount: createAccountWith({ DATABASE_URL: database.url }),
    async stop() {
      server.kill('SIGTERM');
      await server.exited;
      await client.close({ timeout: 0 });
      await database.drop();
    },
  };
}

/** Whether `store` can run here, or why not. */
export function storeSkipReason(store: StoreName): string | undefined {
  if (store === 'postgres' && !postgresAvailable) return 'no PostgreSQL answers';
  return undefined;
}

/** Creates a property owned by `ownerId` (as the employee: set-up is not the hostile's quota); its id. */
async function createProperty(
  d: Deployment,
  ownerId: string,
  overrides: Record<string, unknown> = {},
) {
  const res = await fetch(`${d.url}/listings/properties`, {
    method: 'POST',
    headers: bearer(d.employee, true),
    body: JSON.stringify(propertyBody({ ownerId, ...overrides })),
  });
  if (res.status !== 201) throw new Error(`create property: ${res.status} ${await res.text()}`);
  return res.headers.get('location')!.split('/').pop()!;
}

/**
 * `count` events of `ownerId`, seeded straight into the events table (as
 * the service appends them, a property change each): the API would take
 * minutes for 100,000.
 */
async function seedEvents(d: Deployment, ownerId: string, count: number, prefix: string) {
  const now = Date.now();
  const chunk = 5_000;
  for (let from = 0; from < count; from += chunk) {
    const n = Math.min(chunk, count - from);
    await d.seed(async (run) => {
      await run(
        `WITH RECURSIVE g(i) AS (
           SELECT CAST(? AS INTEGER) UNION ALL SELECT i + 1 FROM g WHERE i < CAST(? AS INTEGER)
         )
         INSERT INTO events (type, occurred_at, resource_kind, resource_id, owner_id, data)
         SELECT 'property.updated', CAST(? AS BIGINT), 'property', CAST(? AS TEXT) || CAST(i AS TEXT),
           CAST(? AS TEXT), '{"id":"' || CAST(? AS TEXT) || CAST(i AS TEXT) || '"}' FROM g`,
        [from + 1, from + n, now, prefix, ownerId, prefix],
      );
    });
  }
}

// ---------------------------------------------------------------- 1. hasher hog

async function hasherHog(d: Deployment, sizes: Sizes): Promise<PatternResult> {
  const password = 'correct horse battery staple';
  // Other people sign in as people do: each to an account of their own, from an
  // address of their own, so none of them meets a limit by itself (a sign-in
  // every 0.5 s in turn over both phases stays under PASSWORD_HASHES_PER_ACCOUNT_PER_MINUTE).
  const victimSignIns = 2 * Math.ceil(sizes.seconds / 0.5) + 2;
  const victims = Math.ceil(victimSignIns / 4);
  // The hostile: throw-away accounts of one customer, one per loop, all from one address.
  const hostiles = sizes.signInLoops;
  for (let i = 0; i < victims; i++)
    await d.createAccount(`noisy-victim-${i}@example.com`, password);
  for (let i = 0; i < hostiles; i++)
    await d.createAccount(`noisy-hostile-${i}@example.com`, password);
  // TRUST_PROXY is on in these deployments: the bench speaks for many clients over loopback.
  const signIn = (email: string, address: string) =>
    timed(`${d.url}/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ email, password }),
    });
  let turn = 0;
  const victim = () =>
    steady(sizes.seconds, 500, async () => {
      const i = turn++ % victims;
      return [await signIn(`noisy-victim-${i}@example.com`, `203.0.113.${10 + i}`)];
    });

  const quiet = await victim();
  const hostile: Tally = {};
  const attack = loops(hostiles, async (loop) => {
    const answer = await signIn(`noisy-hostile-${loop}@example.com`, '198.51.100.7');
    count(hostile, answer.status);
    await backOff(answer);
  });
  const attacked = await victim();
  await attack.stop();
  const a = summarize(attacked);
  return {
    pattern: 'hasher',
    store: d.store,
    victim: `${victims} other accounts, each from its own address, sign in with their correct password, one every 0.5 s in turn`,
    quiet: summarize(quiet),
    attacked: a,
    hostile,
    figures: {},
    targets: [everyAnswered(a, 'every victim sign-in answered 200')],
  };
}

// ---------------------------------------------------------------- shared victim reads

/** The victim's own reads: /health, its property list and one of its properties. */
async function readingVictim(d: Deployment, sub: string) {
  const token = await tokenOf(sub);
  const id = await createProperty(d, sub);
  return (seconds: number) =>
    steady(seconds, 250, async () => {
      const health = await timed(`${d.url}/health`);
      const list = await timed(`${d.url}/listings/properties`, { headers: bearer(token) });
      const one = await timed(`${d.url}/listings/properties/${id}`, { headers: bearer(token) });
      return [health, list, one];
    });
}

const failuresText = (s: Summary) =>
  Object.keys(s.failures).length === 0
    ? `${s.requests} of ${s.requests} 2xx`
    : `${s.requests - Object.values(s.failures).reduce((a, b) => a + b, 0)} of ${s.requests} 2xx; ${Object.entries(
        s.failures,
      )
        .map(([status, n]) => `${n}× ${status === '0' ? 'no answer' : status}`)
        .join(', ')}`;

/**
 * The victim kept its pace: it makes its rounds in a closed loop, so under
 * attack it makes fewer of them exactly when its answers are slow (a
 * timing: the bench reports it, the slow suite does not assert it).
 */
/** The target every pattern has: each of the victim's requests answered 2xx. */
const everyAnswered = (attacked: Summary, name = 'every victim request answered 2xx'): Target => ({
  key: 'victim-2xx',
  name,
  met: attacked.success === 1,
  value: failuresText(attacked),
});

const paceTarget = (quiet: Summary, attacked: Summary): Target => ({
  key: 'victim-pace',
  timing: true,
  name: `the victim kept its pace (at least ${PACE_SHARE * 100} % of its quiet requests)`,
  met: attacked.requests >= PACE_SHARE * quiet.requests,
  value: `${attacked.requests} of ${quiet.requests}`,
});
const PACE_SHARE = 0.8;

// ---------------------------------------------------------------- 2. long polls

async function longPolls(d: Deployment, sizes: Sizes): Promise<PatternResult> {
  const victim = await readingVictim(d, 'noisy-poll-victim');
  await seedEvents(d, 'noisy-poll-hostile', sizes.hostileEvents, 'noisy-poll-');
  const quiet = await victim(sizes.seconds);
  const hostileToken = await tokenOf('noisy-poll-hostile');
  const hostile: Tally = {};
  const url = `${d.url}/listings/events?types=static_page.deleted&wait=10`;
  const attack = loops(sizes.polls, async () => {
    const answer = await timed(url, { headers: bearer(hostileToken) });
    count(hostile, answer.status);
    // A refused poll is re-opened too, when a 429 says so, and never in a tight loop.
    if (answer.status === 429) await backOff(answer);
    else if (answer.status !== 200) await Bun.sleep(100);
  });
  // The polls are open (or refused) before the victim starts.
  await Bun.sleep(1000);
  const attacked = await victim(sizes.seconds);
  await attack.stop();
  const a = summarize(attacked);
  const q = summarize(quiet);
  return {
    pattern: 'long-polls',
    store: d.store,
    victim: 'GET /health, its property list and one property, every 0.25 s',
    quiet: q,
    attacked: a,
    hostile,
    figures: { 'hostile events': String(sizes.hostileEvents), 'polls open': String(sizes.polls) },
    targets: [everyAnswered(a), paceTarget(q, a)],
  };
}

// ---------------------------------------------------------------- 3. webhook backlog

async function webhookBacklog(d: Deployment, sizes: Sizes): Promise<PatternResult> {
  const hanging = hangingReceiver();
  const arrivals: number[] = [];
  const healthy = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      await request.text();
      arrivals.push(performance.now());
      return new Response(null, { status: 200 });
    },
  });
  try {
    const victimSub = 'noisy-hook-victim';
    const victimToken = await tokenOf(victimSub);
    const propertyId = await createProperty(d, victimSub);
    const created = await fetch(`${d.url}/listings/webhooks`, {
      method: 'POST',
      headers: bearer(victimToken, true),
      body: JSON.stringify({ url: `http://127.0.0.1:${healthy.port}/victim` }),
    });
    if (created.status !== 201) throw new Error(`victim endpoint: ${created.status}`);

    const hostileSubs = Array.from(
      { length: sizes.webhookCustomers },
      (_, i) => `noisy-hook-hostile-${i}`,
    );
    for (const sub of hostileSubs) {
      const token = await tokenOf(sub);
      for (let e = 0; e < sizes.endpointsPerCustomer; e++) {
        const res = await fetch(`${d.url}/listings/webhooks`, {
          method: 'POST',
          headers: bearer(token, true),
          body: JSON.stringify({ url: hanging.url(`/${sub}/${e}`) }),
        });
        if (res.status !== 201)
          throw new Error(`hostile endpoint: ${res.status} ${await res.text()}`);
      }
    }

    /** One victim write, then the time until its delivery arrives (Infinity: not within the bound). */
    const deliveryAfterWrite = async (
      i: number,
    ): Promise<{ write: Sample; deliveryMs: number }> => {
      // Earlier deliveries (the set-up's events) have arrived or been given up by now.
      const before = arrivals.length;
      const write = await timed(`${d.url}/listings/properties/${propertyId}/additional-data`, {
        method: 'PUT',
        headers: bearer(victimToken, true),
        body: JSON.stringify({ data: { write: i } }),
      });
      const answered = performance.now();
      const deadline = answered + DELIVERY_GIVE_UP_MS;
      while (arrivals.length === before && performance.now() < deadline) await Bun.sleep(10);
      const deliveryMs =
        arrivals.length > before ? arrivals[before]! - answered : Number.POSITIVE_INFINITY;
      // Anything else the write caused arrives before the next one is timed.
      await Bun.sleep(300);
      return { write, deliveryMs };
    };
    const healthDuring = async <T>(work: () => Promise<T>) => {
      const samples: Sample[] = [];
      const health = loops(1, async () => {
        samples.push(await timed(`${d.url}/health`));
        await Bun.sleep(100);
      });
      const result = await work();
      await health.stop();
      return { result, samples };
    };
    const timeDeliveries = async (offset: number) => {
      const times: number[] = [];
      const writes: Sample[] = [];
      for (let i = 0; i < sizes.deliveriesTimed; i++) {
        const { write, deliveryMs } = await deliveryAfterWrite(offset + i);
        writes.push(write);
        times.push(deliveryMs);
      }
      return { times, writes };
    };

    await Bun.sleep(1000);
    const quiet = await healthDuring(() => timeDeliveries(0));

    // The backlog: events of the hostile customers and a due delivery of each to each of their endpoints.
    const perCustomer = Math.ceil(
      sizes.deliveries / (sizes.webhookCustomers * sizes.endpointsPerCustomer),
    );
    const now = Date.now();
    for (const sub of hostileSubs) {
      await seedEvents(d, sub, perCustomer, `${sub}-`);
    }
    await d.seed(async (run) => {
      await run(
        `INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, resource, status, attempts, next_attempt_at, created_at)
         SELECT w.id, e.id, e.type, 'property:' || e.resource_id, 'pending', 0, CAST(? AS BIGINT), CAST(? AS BIGINT)
         FROM events e JOIN webhook_endpoints w ON w.owner_id = e.owner_id
         WHERE e.owner_id LIKE 'noisy-hook-hostile-%'`,
        [now, now],
      );
      // Fanned out already: the service does not queue these events again. Each
      // endpoint's next-due time and pending count, as fan-out keeps them (every
      // seeded delivery is of a resource of its own, so none waits behind another).
      await run(
        `UPDATE webhook_endpoints SET cursor = (SELECT max(id) FROM events),
           pending_deliveries = (SELECT count(*) FROM webhook_deliveries d
             WHERE d.endpoint_id = webhook_endpoints.id AND d.status = 'pending'),
           next_attempt_at = CAST(? AS BIGINT)
         WHERE owner_id LIKE 'noisy-hook-hostile-%'`,
        [now],
      );
    });
    const queued = await d.scalar(
      `SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'`,
    );
    // The hostile's attempts hang (the next delivery run starts within its 10 s tick); wait until no new one starts for 2 s.
    const settle = performance.now() + 25_000;
    let seen = -1;
    while (
      performance.now() < settle &&
      (hanging.arrived.length === 0 || hanging.arrived.length !== seen)
    ) {
      seen = hanging.arrived.length;
      await Bun.sleep(2_000);
    }
    const holding = hanging.holding();
    const attacked = await healthDuring(() => timeDeliveries(100));
    const hostile: Tally = { 'attempts arrived (held)': hanging.arrived.length };

    const worst = Math.max(...attacked.result.times);
    const victimAll = summarize([...attacked.samples, ...attacked.result.writes]);
    const lost = attacked.result.times.filter((t) => !Number.isFinite(t)).length;
    const ms = (t: number) => (Number.isFinite(t) ? `${(t / 1000).toFixed(2)} s` : 'lost');
    return {
      pattern: 'webhooks',
      store: d.store,
      victim: `${sizes.deliveriesTimed} property writes, each timed to its webhook; /health every 0.1 s`,
      quiet: summarize(quiet.samples),
      attacked: summarize(attacked.samples),
      hostile,
      figures: {
        'deliveries quiet': quiet.result.times.map(ms).join(', '),
        'deliveries under attack': attacked.result.times.map(ms).join(', '),
        'backlog queued': String(queued),
        'hostile attempts hanging': String(holding),
        'victim writes': failuresText(summarize(attacked.result.writes)),
      },
      targets: [
        everyAnswered(victimAll, 'every victim request (its writes, /health) answered 2xx'),
        {
          key: 'delivery-within-target',
          timing: true,
          name: `every victim delivery within ${TARGETS.webhookDeliveryMs / 1000} s`,
          met: worst <= TARGETS.webhookDeliveryMs,
          value: `worst ${ms(worst)}`,
        },
        {
          key: 'delivery-arrives',
          name: `every victim delivery arrives (within ${DELIVERY_GIVE_UP_MS / 1000} s)`,
          met: lost === 0,
          value: `${sizes.deliveriesTimed - lost} of ${sizes.deliveriesTimed}`,
        },
      ],
    };
  } finally {
    hanging.release();
    hanging.stop();
    healthy.stop(true);
  }
}

// ---------------------------------------------------------------- 4. large payload overwrites

async function payloadOverwrites(d: Deployment, sizes: Sizes): Promise<PatternResult> {
  const victim = await readingVictim(d, 'noisy-data-victim');
  const hostileSub = 'noisy-data-hostile';
  const hostileToken = await tokenOf(hostileSub);
  const propertyId = await createProperty(d, hostileSub);
  // The largest document allowed, 64 KiB of JSON, random so that no store can compress it away.
  const filler = (i: number) => {
    const room = 64 * 1024 - JSON.stringify({ n: i, blob: '' }).length;
    const random = Buffer.from(crypto.getRandomValues(new Uint8Array(room))).toString('base64');
    return { n: i, blob: random.slice(0, room) };
  };
  const quiet = await victim(sizes.seconds);

  const sizeBefore = await d.keptBytes();
  const fileBefore = await d.sizeBytes();
  const hostile: Tally = {};
  let largestPage = 0;
  let overwritesDone = 0;
  const writer = (async () => {
    while (overwritesDone < sizes.overwrites) {
      const res = await timed(`${d.url}/listings/properties/${propertyId}/additional-data`, {
        method: 'PUT',
        headers: bearer(hostileToken, true),
        body: JSON.stringify({ data: filler(overwritesDone) }),
      });
      count(hostile, res.status);
      if (res.status === 200) overwritesDone++;
      else if (res.status === 429) await backOff(res);
      else if (hostile[res.status]! > 20) break;
    }
  })();
  /** Walks the whole feed from its start, `limit=500` a page. */
  const readFeed = async () => {
    let after = '';
    for (let page = 0; page < 10_000; page++) {
      const res = await timed(`${d.url}/listings/events?limit=500${after}`, {
        headers: bearer(hostileToken),
      });
      count(hostile, res.status);
      largestPage = Math.max(largestPage, Buffer.byteLength(res.body));
      if (res.status !== 200) {
        await Bun.sleep(200);
        return;
      }
      const body = JSON.parse(res.body) as { next_cursor: string | null; has_more: boolean };
      if (!body.has_more || body.next_cursor === null) return;
      after = `&after=${encodeURIComponent(body.next_cursor)}`;
    }
  };
  // The readers read again and again while the victim is measured (on a
  // loaded machine they would otherwise hold the writer back for minutes),
  // then once more each when every overwrite is in.
  let victimDone = false;
  const readers = Promise.all(
    Array.from({ length: sizes.feedReaders }, async () => {
      while (!victimDone) await readFeed();
    }),
  );
  const attacked = await victim(sizes.seconds);
  victimDone = true;
  await readers;
  await writer;
  await Promise.all(Array.from({ length: sizes.feedReaders }, readFeed));
  const fileGrowth = (await d.sizeBytes()) - fileBefore;
  const growth = (await d.keptBytes()) - sizeBefore;
  const a = summarize(attacked);
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MiB`;
  const q = summarize(quiet);
  return {
    pattern: 'payloads',
    store: d.store,
    victim: 'GET /health, its property list and one property, every 0.25 s',
    quiet: q,
    attacked: a,
    hostile,
    figures: {
      'overwrites accepted': `${overwritesDone} of ${sizes.overwrites}`,
      'database growth': mib(growth),
      ...(d.store === 'postgres'
        ? { 'file growth, dead row versions included': mib(fileGrowth) }
        : {}),
      'largest feed page': mib(largestPage),
    },
    targets: [
      everyAnswered(a),
      paceTarget(q, a),
      {
        key: 'growth',
        name: `database growth ≤ ${mib(TARGETS.growthBytes)}`,
        met: growth <= TARGETS.growthBytes,
        value: mib(growth),
      },
      {
        key: 'page',
        name: `no feed page over ${mib(TARGETS.pageBytes)}`,
        met: largestPage <= TARGETS.pageBytes,
        value: mib(largestPage),
      },
    ],
  };
}

// ---------------------------------------------------------------- 5. walk beside another tenant's writes

/** Writes a customer may make in a minute, less a margin: the hostile splits its changes so each stays within it. */
const WRITES_PER_ACCOUNT = 250;

async function walkBesideWrites(d: Deployment, sizes: Sizes): Promise<PatternResult> {
  const victimSub = 'noisy-walk-victim';
  const victimToken = await tokenOf(victimSub);
  const perPage = 4;
  const pages = 6;
  for (let i = 0; i < perPage * pages; i++) {
    await createProperty(d, victimSub, { totalUnits: 1 + (i % 10) });
  }
  const accounts = Math.ceil(sizes.sortChanges / WRITES_PER_ACCOUNT);
  // Each hostile property takes at most 29 more units (30 is a property's most).
  const propertiesPerAccount = Math.ceil(sizes.sortChanges / accounts / 25);
  const hostileProperties: { token: string; id: string }[] = [];
  for (let a = 0; a < accounts; a++) {
    const sub = `noisy-walk-hostile-${a}`;
    const token = await tokenOf(sub);
    for (let p = 0; p < propertiesPerAccount; p++) {
      hostileProperties.push({ token, id: await createProperty(d, sub, { totalUnits: 1 }) });
    }
  }

  /**
   * A keyset walk sorted by `sort` (totalUnits, either way); `between()` runs
   * after each page but the last. The quiet walk and the attacked one sort
   * in opposite directions, so no page of one is a cached answer of the other.
   */
  const walk = async (sort: string, between: (page: number) => Promise<void>) => {
    const samples: Sample[] = [];
    let href: string | undefined =
      `/listings/properties?paging=keyset&sort=${sort}&itemsPerPage=${perPage}`;
    let seen = 0;
    for (let page = 0; href !== undefined && page < 100; page++) {
      const res = await timed(`${d.url}${href}`, { headers: bearer(victimToken) });
      samples.push(res);
      if (res.status !== 200) break;
      const body = JSON.parse(res.body) as {
        _links: { next?: { href: string } };
        _embedded: { 'svc:properties': unknown[] };
      };
      seen += body._embedded['svc:properties'].length;
      href = body._links.next?.href;
      if (href !== undefined) await between(page);
    }
    return { samples, seen, completed: href === undefined && samples.at(-1)?.status === 200 };
  };

  const quiet = await walk('-totalUnits', () => Bun.sleep(200));

  // The hostile's changes: a unit added to one of its properties at a time (totalUnits changes each time).
  const hostile: Tally = {};
  let changes = 0;
  let next = 0;
  const changer = (async () => {
    const workers = Array.from({ length: 4 }, async () => {
      while (changes < sizes.sortChanges) {
        const target = hostileProperties[next++ % hostileProperties.length]!;
        const res = await timed(`${d.url}/listings/properties/${target.id}/units`, {
          method: 'POST',
          headers: bearer(target.token, true),
          body: '{}',
        });
        count(hostile, res.status);
        if (res.status === 201) changes++;
        else if (res.status === 429) await backOff(res);
        else if ((hostile[res.status] ?? 0) > 50) return;
      }
    });
    await Promise.all(workers);
  })();
  // The victim walks slowly: one page a second while the hostile writes, the last pages after it is done.
  const attacked = await walk('totalUnits', async (page) => {
    if (page >= pages - 2) await changer;
    else await Bun.sleep(1000);
  });
  await changer;
  const walked = summarize(attacked.samples);
  const gone = attacked.samples.filter((s) => s.status === 410).length;
  return {
    pattern: 'walk',
    store: d.store,
    victim: `walks its ${perPage * pages} properties by totalUnits, ${perPage} a page, slowly`,
    quiet: summarize(quiet.samples),
    attacked: walked,
    hostile,
    figures: {
      'sort-field changes by the hostile': `${changes} (over ${accounts} accounts of ${WRITES_PER_ACCOUNT} writes, within the write limit)`,
      'sort changes recorded': String(await d.scalar('SELECT count(*) FROM property_sort_changes')),
      'victim walk': `${attacked.completed ? 'completed' : 'stopped'}, ${attacked.seen} of ${perPage * pages} seen`,
    },
    targets: [
      {
        key: 'walk',
        name: 'the walk completes without 410',
        met: attacked.completed && gone === 0 && attacked.seen === perPage * pages,
        value: attacked.completed ? `completed, ${attacked.seen} seen` : failuresText(walked),
      },
    ],
  };
}

const RUNNERS: Record<Pattern, (d: Deployment, sizes: Sizes) => Promise<PatternResult>> = {
  hasher: hasherHog,
  'long-polls': longPolls,
  webhooks: webhookBacklog,
  payloads: payloadOverwrites,
  walk: walkBesideWrites,
};

/** Runs `pattern` on a server of its own on `store` (a fresh database each: no pattern sees another's rows). */
export async function runPattern(
  store: StoreName,
  pattern: Pattern,
  sizes: Sizes,
): Promise<PatternResult> {
  const d = await deploy(store);
  try {
    return await RUNNERS[pattern](d, sizes);
  } finally {
    await d.stop();
  }
}

/** The ratio of an attacked figure to its quiet one, in words. */
export const ratio = (attacked: number, quiet: number) =>
  Number.isFinite(attacked) && Number.isFinite(quiet) && quiet > 0
    ? `${(attacked / quiet).toFixed(1)}×`
    : '—';
