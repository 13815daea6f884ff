import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { Health } from '@/api/health/schemas';
import { TokenService } from '@/auth/tokens';
import { RedisConnection } from '@/redis/connection';
import { freePort } from '../accounts/server-process';
import { closeAtEnd } from '../support/harness';
import {
  type OwnRedisOptions,
  ownRedisServer,
  ownRedisTitle,
  redisServerInstalled,
  redisTlsSupported,
  testCertificates,
  tlsRedisTitle,
} from '../support/redis';
import { spawnService, startFails } from '../support/service-process';

const SECRET = 'r'.repeat(48);
const PREFIX = 'app:';
const TRANSACTIONS = '/api/v1/c/transactions';
/** Passwords with characters a URL must escape, so the tests see them decoded as the server expects. */
const PASSWORD = 'default/p@ss:word#1';
const ACL_PASSWORD = 'limiter/p@ss:word#2';
/**
 * The least a user of the service needs: its own keys, and the commands it
 * sends and its scripts call (docs/scaling-out.md lists the same).
 */
const LIMITER_USER = [
  ...['limiter', 'on', `>${ACL_PASSWORD}`, `~${PREFIX}*`, '+@connection', '+eval', '+evalsha'],
  ...['+del', '+get', '+set', '+incr', '+pexpire', '+zadd', '+zcard', '+zrange', '+zrem'],
  ...['+zremrangebyrank', '+zremrangebyscore'],
];

/** `url` signed in as `user` (empty: the default user) with `password`. */
const signedIn = (url: string, user: string, password: string) =>
  url.replace('//', `//${user}:${encodeURIComponent(password)}@`);

/** A redis-server of the test's own (ownRedisServer's options) for `use`, stopped after. */
async function withRedis(
  options: OwnRedisOptions,
  use: (redis: Awaited<ReturnType<typeof ownRedisServer>>) => Promise<void>,
) {
  const redis = await ownRedisServer(options);
  try {
    await use(redis);
  } finally {
    await redis.stop();
  }
}

/** Neither the password nor its escaped form anywhere in `text`. */
function expectNoSecret(text: string, password = PASSWORD) {
  expect(text).not.toContain(password);
  expect(text).not.toContain(encodeURIComponent(password));
}

/**
 * The service process on `env`'s Redis with a customer limit of 3 a minute,
 * given to `use`, then stopped; nothing it logged holds a password.
 */
async function withService<T>(
  env: Record<string, string>,
  use: (url: string) => Promise<T>,
): Promise<T> {
  const service = await spawnService({
    JWT_SECRET: SECRET,
    REDIS_PREFIX: PREFIX,
    RATE_LIMIT_CUSTOMER_PER_MINUTE: '3',
    WORKERS: 'off',
    ...env,
  });
  try {
    return await use(service.url);
  } finally {
    service.proc.kill('SIGTERM');
    await service.proc.exited;
    const logged = (await service.rest()) + (await new Response(service.proc.stderr).text());
    expectNoSecret(logged);
    expectNoSecret(logged, ACL_PASSWORD);
  }
}

/** GET /health: its status and body text. */
async function healthOf(url: string) {
  const res = await fetch(`${url}/health`);
  return { status: res.status, body: await res.text() };
}

/** Four requests of one customer, then /health. */
const limiterThrough = (env: Record<string, string>) =>
  withService(env, async (url) => {
    const token = await new TokenService(SECRET).issue('customer-over-redis', 'customer', 600);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(url + TRANSACTIONS, {
        headers: { authorization: `Bearer ${token}` },
      });
      statuses.push(res.status);
    }
    return { statuses, health: await healthOf(url) };
  });

/** The minute window the limiter keeps in Redis for the customer: its requests counted there. */
async function countedInRedis(url: string, tlsCa?: string) {
  const admin = new RedisConnection({ url: signedIn(url, '', PASSWORD), prefix: PREFIX, tlsCa });
  closeAtEnd(admin);
  const keys = (await admin.send('KEYS', [`${PREFIX}rl:*:minute`])) as string[];
  expect(keys).toHaveLength(1);
  return Number(await admin.send('ZCARD', [keys[0]!]));
}

/** A start-up that must fail: exit 1, one line naming REDIS_URL, and the password nowhere. */
async function refusedAtStart(env: Record<string, string>) {
  const { code, lines, output } = await startFails(env);
  expect(code).toBe(1);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith('REDIS_URL: ');
  expectNoSecret(output);
  return lines[0];
}

describe.skipIf(!redisServerInstalled)(
  ownRedisTitle('happy: a Redis that wants a password'),
  () => {
    test('the default user: the limiter counts in Redis, /health names it, the password is never logged', async () => {
      await withRedis({ password: PASSWORD }, async (redis) => {
        const { statuses, health } = await limiterThrough({
          REDIS_URL: signedIn(redis.url, '', PASSWORD),
        });
        expect(statuses).toEqual([200, 200, 200, 429]);
        expect(health.status).toBe(200);
        expect(Health.parse(JSON.parse(health.body)).backends).toEqual({
          sqlite: 'ok',
          redis: 'ok',
        });
        expect(await countedInRedis(redis.url)).toBe(3);
      });
    });

    test('an ACL user allowed only the service keys and commands', async () => {
      await withRedis({ password: PASSWORD, users: [LIMITER_USER] }, async (redis) => {
        const { statuses, health } = await limiterThrough({
          REDIS_URL: signedIn(redis.url, 'limiter', ACL_PASSWORD),
        });
        expect(statuses).toEqual([200, 200, 200, 429]);
        expect(health.status).toBe(200);
        expect(await countedInRedis(redis.url)).toBe(3);
      });
    });
  },
);

describe.skipIf(!redisServerInstalled)(ownRedisTitle('error: refused credentials at start'), () => {
  test('a wrong password: exit 1, one line with the server refusal, no password', async () => {
    await withRedis({ password: PASSWORD }, async (redis) => {
      const line = await refusedAtStart({
        REDIS_URL: signedIn(redis.url, '', `${PASSWORD}-wrong`),
      });
      expect(line).toBe(
        `REDIS_URL: 127.0.0.1:${redis.port} refused: WRONGPASS invalid username-password pair or user is disabled.`,
      );
    });
  });

  test('an ACL user with a wrong password, or no password at all: refused the same way', async () => {
    await withRedis({ password: PASSWORD, users: [LIMITER_USER] }, async (redis) => {
      const wrong = await refusedAtStart({
        REDIS_URL: signedIn(redis.url, 'limiter', PASSWORD),
      });
      expect(wrong).toContain('refused: WRONGPASS');
      const none = await refusedAtStart({ REDIS_URL: redis.url });
      expect(none).toBe(
        `REDIS_URL: 127.0.0.1:${redis.port} refused: NOAUTH Authentication required.`,
      );
    });
  });

  test('a database number the server does not have: refused the same way', async () => {
    await withRedis({ password: PASSWORD }, async (redis) => {
      expect(await refusedAtStart({ REDIS_URL: `${signedIn(redis.url, '', PASSWORD)}/99` })).toBe(
        `REDIS_URL: 127.0.0.1:${redis.port} refused: ERR DB index is out of range`,
      );
    });
  });
});

describe.skipIf(!redisTlsSupported)(tlsRedisTitle('happy: rediss:// to a TLS-only Redis'), () => {
  test('a private CA in REDIS_TLS_CA_FILE: the limiter counts in Redis over TLS with a password', async () => {
    await withRedis({ password: PASSWORD, tls: true }, async (redis) => {
      const { statuses, health } = await limiterThrough({
        REDIS_URL: signedIn(redis.url, '', PASSWORD),
        REDIS_TLS_CA_FILE: redis.caFile!,
      });
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(health.status).toBe(200);
      expect(await countedInRedis(redis.url, await Bun.file(redis.caFile!).text())).toBe(3);
    });
  });

  test('or the CA in NODE_EXTRA_CA_CERTS, which Bun adds to the trusted ones at its start', async () => {
    await withRedis({ password: PASSWORD, tls: true }, async (redis) => {
      const { statuses } = await limiterThrough({
        REDIS_URL: signedIn(redis.url, '', PASSWORD),
        NODE_EXTRA_CA_CERTS: redis.caFile!,
      });
      expect(statuses).toEqual([200, 200, 200, 429]);
    });
  });
});

describe.skipIf(!redisTlsSupported)(tlsRedisTitle('error: the TLS Redis goes away'), () => {
  test('/health answers 503 without the password, and 200 once the client has signed in again', async () => {
    await withRedis({ password: PASSWORD, tls: true }, async (redis) => {
      const env = {
        REDIS_URL: signedIn(redis.url, '', PASSWORD),
        REDIS_TLS_CA_FILE: redis.caFile!,
      };
      await withService(env, async (url) => {
        expect((await healthOf(url)).status).toBe(200);
        await redis.stop();
        const down = await healthOf(url);
        expect(down.status).toBe(503);
        expect(JSON.parse(down.body).detail).toBe('Backend unavailable: redis');
        expectNoSecret(down.body);
        await redis.start();
        let back = await healthOf(url);
        for (let i = 0; i < 50 && back.status !== 200; i++) {
          await Bun.sleep(100);
          back = await healthOf(url);
        }
        expect(back.status).toBe(200);
      });
    });
  });
});

describe.skipIf(!redisTlsSupported)(tlsRedisTitle('error: TLS that cannot work, at start'), () => {
  test('a certificate no trusted CA signed: exit 1, one line naming the TLS error', async () => {
    const otherCa = join(testCertificates(), 'ca.pem');
    await withRedis({ password: PASSWORD, tls: true }, async (redis) => {
      const url = signedIn(redis.url, '', PASSWORD);
      const untrusted = `REDIS_URL: cannot connect to 127.0.0.1:${redis.port} (TLS: SELF_SIGNED_CERT_IN_CHAIN, self signed certificate in certificate chain; REDIS_TLS_CA_FILE names a CA to trust)`;
      expect(await refusedAtStart({ REDIS_URL: url })).toBe(untrusted);
      expect(await refusedAtStart({ REDIS_URL: url, REDIS_TLS_CA_FILE: otherCa })).toBe(untrusted);
    });
  });

  test('a server that wants a client certificate: exit 1, one line saying none is sent', async () => {
    await withRedis({ password: PASSWORD, tls: 'clientCertificates' }, async (redis) => {
      const line = await refusedAtStart({
        REDIS_URL: signedIn(redis.url, '', PASSWORD),
        REDIS_TLS_CA_FILE: redis.caFile!,
      });
      expect(line).toStartWith(`REDIS_URL: cannot connect to 127.0.0.1:${redis.port} (TLS: `);
      expect(line).toEndWith(
        'the service sends no client certificate: set tls-auth-clients to no or optional)',
      );
    });
  });

  test('redis:// to the TLS port: exit 1, one line pointing at rediss://', async () => {
    await withRedis({ password: PASSWORD, tls: true }, async (redis) => {
      const plain = signedIn(redis.url, '', PASSWORD).replace('rediss://', 'redis://');
      const line = await refusedAtStart({ REDIS_URL: plain });
      expect(line).toStartWith(`REDIS_URL: cannot connect to 127.0.0.1:${redis.port} (`);
      expect(line).toEndWith('closed without a reply: a TLS port? use rediss://)');
    });
  });

  test('rediss:// to a plain port: exit 1 once the handshake times out, one line pointing at redis://', async () => {
    await withRedis({ password: PASSWORD }, async (redis) => {
      const tls = signedIn(redis.url, '', PASSWORD).replace('redis://', 'rediss://');
      expect(await refusedAtStart({ REDIS_URL: tls })).toBe(
        `REDIS_URL: cannot connect to 127.0.0.1:${redis.port} (no TLS handshake in time: not a TLS port? use redis://)`,
      );
    });
  });
});

describe.skipIf(!redisServerInstalled)(ownRedisTitle('error: a Redis Cluster node'), () => {
  test('exit 1 at start, one line saying Redis Cluster is not supported', async () => {
    await withRedis({ password: PASSWORD, cluster: true }, async (redis) => {
      expect(await refusedAtStart({ REDIS_URL: signedIn(redis.url, '', PASSWORD) })).toBe(
        `REDIS_URL: 127.0.0.1:${redis.port} is a Redis Cluster node; Redis Cluster is not supported`,
      );
    });
  });
});

describe('error: no Redis at a rediss:// address', () => {
  test('exit 1 with the same line as for redis://', async () => {
    const port = freePort();
    expect(
      await refusedAtStart({ REDIS_URL: signedIn(`rediss://127.0.0.1:${port}`, '', PASSWORD) }),
    ).toBe(
      `REDIS_URL: cannot connect to 127.0.0.1:${port} (ECONNREFUSED: nothing listens there; start Redis or correct REDIS_URL)`,
    );
  });
});
