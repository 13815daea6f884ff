import { describe, expect, test } from 'bun:test';
import { RedisClient, SQL } from 'bun';
import { postgresCpuSeconds, recreateDatabase, redisCommandCounter } from '../../bench/postgres';
import {
  POSTGRES_ADMIN_URL,
  pgSuite,
  postgresAvailable,
  testDatabaseName,
  testDatabaseUrl,
} from '../support/postgres';
import { redisSkipReason, redisTitle, SHARED_REDIS_URL } from '../support/redis';

const CLOCK_TICKS = 100;

/** Work a backend spends CPU on: a few hundred milliseconds of counting. */
const BUSY_QUERY = 'SELECT count(*) FROM generate_series(1, 4000000)';

async function dropDatabase(name: string) {
  const admin = new SQL(POSTGRES_ADMIN_URL, { max: 1 });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.close();
  }
}

describe.skipIf(!postgresAvailable)(pgSuite('bench on PostgreSQL'), () => {
  test('recreateDatabase makes the database empty again, with random_page_cost 1.1', async () => {
    const name = testDatabaseName();
    const url = testDatabaseUrl(name);
    try {
      await recreateDatabase(url);
      const first = new SQL(url, { max: 1 });
      await first.unsafe('CREATE TABLE left_over (id int)');
      // Still connected: the next run ends this session rather than fail.
      await recreateDatabase(url);
      await first.close({ timeout: 0 }).catch(() => undefined);
      const second = new SQL(url, { max: 1 });
      try {
        const tables = await second.unsafe(
          "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'left_over'",
        );
        expect(tables[0].n).toBe(0);
        const setting = await second.unsafe('SHOW random_page_cost');
        expect(setting[0].random_page_cost).toBe('1.1');
      } finally {
        await second.close();
      }
    } finally {
      await dropDatabase(name);
    }
  });

  test("postgresCpuSeconds counts the named database's backends and not another's", async () => {
    const name = testDatabaseName();
    const url = testDatabaseUrl(name);
    const other = testDatabaseUrl(testDatabaseName());
    await recreateDatabase(url);
    const client = new SQL(url, { max: 1 });
    try {
      await client.unsafe('SELECT 1'); // the backend exists before the first reading
      const before = postgresCpuSeconds(url, CLOCK_TICKS);
      const otherBefore = postgresCpuSeconds(other, CLOCK_TICKS);
      const started = performance.now();
      await client.unsafe(BUSY_QUERY);
      const elapsed = (performance.now() - started) / 1000;
      const spent = postgresCpuSeconds(url, CLOCK_TICKS) - before;
      const spentElsewhere = postgresCpuSeconds(other, CLOCK_TICKS) - otherBefore;
      expect(spent).toBeGreaterThan(0.05);
      expect(spent).toBeLessThanOrEqual(elapsed + 0.1);
      expect(spentElsewhere).toBeLessThan(spent);
    } finally {
      await client.close();
      await dropDatabase(name);
    }
  });

  test('recreateDatabase refuses a name it would have to quote', async () => {
    await expect(recreateDatabase('postgres://postgres@127.0.0.1:5432/bench;drop')).rejects.toThrow(
      '--postgres-url must name a plain database',
    );
  });
});

describe.skipIf(redisSkipReason !== undefined)(redisTitle('bench Redis command counter'), () => {
  test("counts other clients' commands and not its own INFO", async () => {
    const counter = redisCommandCounter(SHARED_REDIS_URL);
    const other = new RedisClient(SHARED_REDIS_URL);
    try {
      const before = await counter.read();
      for (let n = 0; n < 20; n++) await other.send('PING', []);
      const after = await counter.read();
      // Other test runs share this Redis and may add to the count.
      expect(after - before).toBeGreaterThanOrEqual(20);
    } finally {
      counter.close();
      other.close();
    }
  });
});
