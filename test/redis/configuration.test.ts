import { describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Health } from '@/api/health/schemas';
import { ConfigError, parseConfig } from '@/config';
import { freePort } from '../accounts/server-process';
import { createTestApp, DATABASE_BACKEND, problemOf, tempDir } from '../support/harness';
import {
  ownRedisServer,
  ownRedisTitle,
  redisEnv,
  redisServerInstalled,
  redisSkipReason,
  redisTitle,
} from '../support/redis';
import { startFails } from '../support/service-process';

/** Enough of a PEM file for the configuration, which only reads it. */
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('happy: REDIS_URL and REDIS_PREFIX', () => {
  test('unset: no Redis, everything in this process', () => {
    expect(parseConfig({ DATABASE_PATH: ':memory:' }).redis).toBeUndefined();
  });

  test('redis:// and rediss:// are taken, with the default prefix or the one given', () => {
    const plain = parseConfig({ DATABASE_PATH: ':memory:', REDIS_URL: 'redis://10.0.0.5:6380/2' });
    expect(plain.redis).toEqual({ url: 'redis://10.0.0.5:6380/2', prefix: 'listings:' });
    const tls = parseConfig({
      DATABASE_PATH: ':memory:',
      REDIS_URL: 'rediss://user:pw@cache.example.com',
      REDIS_PREFIX: 'eu-1:',
    });
    expect(tls.redis).toEqual({ url: 'rediss://user:pw@cache.example.com', prefix: 'eu-1:' });
  });

  test('REDIS_TLS_CA_FILE: its certificates are read once, for a rediss:// URL', () => {
    const file = join(tempDir(), 'ca.pem');
    writeFileSync(file, PEM);
    const { redis } = parseConfig({
      DATABASE_PATH: ':memory:',
      REDIS_URL: 'rediss://cache.internal:6380',
      REDIS_TLS_CA_FILE: file,
    });
    expect(redis).toEqual({ url: 'rediss://cache.internal:6380', prefix: 'listings:', tlsCa: PEM });
  });
});

describe('error: a bad REDIS_URL or REDIS_PREFIX', () => {
  test.each(['localhost:6379', 'http://127.0.0.1:6379', 'redis://'])(
    'REDIS_URL=%s is refused naming the variable',
    (value) => {
      expect(() => parseConfig({ DATABASE_PATH: ':memory:', REDIS_URL: value })).toThrow(
        /^REDIS_URL: not a redis:\/\/ or rediss:\/\/ URL/,
      );
    },
  );

  test('the refusal never shows the password of the URL', () => {
    expect(() =>
      parseConfig({ DATABASE_PATH: ':memory:', REDIS_URL: 'http://admin:s3cret@host:6379' }),
    ).toThrow('(got "http://***@host:6379")');
  });

  test.each(['redis://:pa/ss@host:6379', 'redis://:pa#ss@host', ':pass-word@host'])(
    'a malformed REDIS_URL (%s) is refused without its password',
    (value) => {
      expect(() => parseConfig({ DATABASE_PATH: ':memory:', REDIS_URL: value })).toThrow(
        /^REDIS_URL: .*\(got "(redis:\/\/)?\*\*\*@host(:6379)?"\)$/,
      );
    },
  );

  test('REDIS_TLS_CA_FILE that cannot be read, holds no certificate, or goes with redis://: refused naming it', () => {
    const dir = tempDir();
    const notPem = join(dir, 'not.pem');
    writeFileSync(notPem, 'hello');
    const refusal = (REDIS_URL: string, REDIS_TLS_CA_FILE: string) => () =>
      parseConfig({ DATABASE_PATH: ':memory:', REDIS_URL, REDIS_TLS_CA_FILE });
    expect(refusal('rediss://h', join(dir, 'missing.pem'))).toThrow(
      `REDIS_TLS_CA_FILE: "${join(dir, 'missing.pem')}" cannot be read`,
    );
    expect(refusal('rediss://h', notPem)).toThrow(
      `REDIS_TLS_CA_FILE: "${notPem}" holds no PEM certificate`,
    );
    expect(refusal('redis://h', notPem)).toThrow(
      `REDIS_TLS_CA_FILE: "${notPem}" is set, but REDIS_URL is not a rediss:// URL`,
    );
  });

  test('REDIS_PREFIX with a space is refused naming the variable', () => {
    expect(() =>
      parseConfig({ DATABASE_PATH: ':memory:', REDIS_URL: 'redis://h', REDIS_PREFIX: 'a b' }),
    ).toThrow(ConfigError);
  });

  test('start-up with a malformed REDIS_URL exits 1 with one line naming it', async () => {
    const { code, lines } = await startFails({ REDIS_URL: 'redis//nowhere' });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith('Invalid configuration: REDIS_URL: ');
  });

  test('start-up with no Redis at the address exits 1 with one line naming it', async () => {
    const port = freePort();
    const { code, lines } = await startFails({ REDIS_URL: `redis://127.0.0.1:${port}` });
    expect(code).toBe(1);
    expect(lines).toEqual([
      `REDIS_URL: cannot connect to 127.0.0.1:${port} (ECONNREFUSED: nothing listens there; start Redis or correct REDIS_URL)`,
    ]);
  });
});

describe('/health without Redis', () => {
  test('names the database only', async () => {
    const ctx = createTestApp();
    const res = await ctx.request('GET', '/health');
    expect(res.status).toBe(200);
    const body = Health.parse(res.body);
    expect(body.backends).toEqual({ [DATABASE_BACKEND]: 'ok' });
  });

  test('answers 503 naming the database when it does not answer', async () => {
    const ctx = createTestApp();
    await ctx.closeDatabase();
    const res = await ctx.request('GET', '/health');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      ...problemOf(503),
      detail: `Backend unavailable: ${DATABASE_BACKEND}`,
    });
  });
});

describe.skipIf(redisSkipReason !== undefined)(redisTitle('happy: /health with Redis'), () => {
  test('names SQLite and Redis', async () => {
    const ctx = createTestApp({ env: redisEnv() });
    const res = await ctx.request('GET', '/health');
    expect(res.status).toBe(200);
    expect(Health.parse(res.body).backends).toEqual({ [DATABASE_BACKEND]: 'ok', redis: 'ok' });
  });
});

describe.skipIf(!redisServerInstalled)(ownRedisTitle('error: Redis goes away'), () => {
  test('/health answers 503 naming redis, and 200 again once it is back', async () => {
    const redis = await ownRedisServer();
    try {
      const ctx = createTestApp({ env: { REDIS_URL: redis.url, REDIS_PREFIX: 'health:' } });
      expect((await ctx.request('GET', '/health')).status).toBe(200);

      await redis.stop();
      const down = await ctx.request('GET', '/health');
      expect(down.status).toBe(503);
      expect(down.body).toEqual({
        ...problemOf(503),
        detail: 'Backend unavailable: redis',
      });

      await redis.start();
      let back = await ctx.request('GET', '/health');
      // The client reconnects in the background: a few tries, no restart.
      for (let i = 0; i < 50 && back.status !== 200; i++) {
        await Bun.sleep(100);
        back = await ctx.request('GET', '/health');
      }
      expect(back.status).toBe(200);
    } finally {
      await redis.stop();
    }
  });
});
