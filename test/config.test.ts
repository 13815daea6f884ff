import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, parseConfig } from '@/config';
import { tempDir } from './support/harness';

describe('configuration (environment variables)', () => {
  test('defaults', () => {
    const dir = tempDir();
    const config = parseConfig({ DATABASE_PATH: join(dir, 'app.db') });
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      publicOrigins: ['http://localhost:3000'],
      rpId: 'localhost',
      trustProxy: false,
      rateLimits: {
        anonymous: 60,
        customer: 120,
        employee: 5000,
        writes: { customer: 300, employee: 5000 },
      },
      workers: true,
      logLevel: 'info',
      corsOrigins: [],
      idempotencyKeysPerCaller: 1000,
    });
  });

  test('JWT_SECRET is generated once beside the database and reused', () => {
    const dir = tempDir();
    const first = parseConfig({ DATABASE_PATH: join(dir, 'app.db') });
    const second = parseConfig({ DATABASE_PATH: join(dir, 'app.db') });
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    const file = join(dir, 'jwt-secret');
    expect(readFileSync(file, 'utf8').trim()).toBe(first.jwtSecret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test('an in-memory database gets a throw-away secret and writes nothing', () => {
    const config = parseConfig({ DATABASE_PATH: ':memory:' });
    expect(config.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(existsSync('jwt-secret')).toBe(false);
  });

  test('account bounds: defaults from the core count, and each value checked by name', () => {
    const config = parseConfig({ DATABASE_PATH: ':memory:', HASH_CONCURRENCY: '3' });
    expect(config.accounts).toEqual({
      signUp: 'open',
      signUpsPerIpPerHour: 10,
      passkeyOptionsPerIpPerMinute: 30,
      passwordHashesPerAccountPerMinute: 5,
      passwordHashesPerIpPerMinute: 30,
      passwordResetsPerIpPerHour: 10,
      passwordResetsPerAccountPerHour: 3,
      emailLinksPerAccountPerHour: 5,
      sessionsPerAccount: 50,
    });
    expect(config.hashing).toEqual({ concurrency: 3, queue: 6 });
    expect(parseConfig({ DATABASE_PATH: ':memory:', SIGN_UP: 'closed' }).accounts.signUp).toBe(
      'closed',
    );
    for (const [name, value] of [
      ['SIGN_UP', 'maybe'],
      ['SIGN_UP_PER_IP_PER_HOUR', '0'],
      ['PASSWORD_HASHES_PER_ACCOUNT_PER_MINUTE', '0'],
      ['PASSWORD_HASHES_PER_IP_PER_MINUTE', 'many'],
      ['SESSIONS_PER_ACCOUNT', '0'],
      ['PASSKEY_OPTIONS_PER_IP_PER_MINUTE', 'many'],
      ['HASH_CONCURRENCY', '0'],
      ['HASH_QUEUE', '-1'],
    ] as const) {
      expect(() => parseConfig({ DATABASE_PATH: ':memory:', [name]: value })).toThrow(
        new RegExp(`^${name}: .*\\(got "${value}"\\)$`),
      );
    }
  });

  test("MEMORY_BUDGET_MB is shared by SQLite's page cache and the read cache", () => {
    const MIB = 1024 * 1024;
    const shares = (env: Record<string, string>) => {
      const config = parseConfig({ DATABASE_PATH: ':memory:', ...env });
      return [config.sqlitePageCacheKib * 1024, config.readCacheChars];
    };
    // A fifth to the page cache, four fifths to the answers.
    expect(shares({})).toEqual([16 * MIB, 64 * MIB]);
    expect(shares({ MEMORY_BUDGET_MB: '300' })).toEqual([60 * MIB, 240 * MIB]);
    // On PostgreSQL this process has no page cache: the read cache has it all.
    const postgres = { DATABASE_URL: 'postgres://localhost/x', JWT_SECRET: 'x'.repeat(40) };
    expect(shares({ ...postgres, MEMORY_BUDGET_MB: '200' })).toEqual([0, 200 * MIB]);
    for (const value of ['0', 'lots', '1.5']) {
      expect(() => parseConfig({ DATABASE_PATH: ':memory:', MEMORY_BUDGET_MB: value })).toThrow(
        new RegExp(`^MEMORY_BUDGET_MB: .*\\(got "${value.replace('.', '\\.')}"\\)$`),
      );
    }
  });

  test('READ_CACHE_MB, which MEMORY_BUDGET_MB replaced, refuses to start instead of being ignored', () => {
    expect(() => parseConfig({ DATABASE_PATH: ':memory:', READ_CACHE_MB: '64' })).toThrow(
      /^READ_CACHE_MB: replaced by MEMORY_BUDGET_MB/,
    );
  });

  test('the employee limit is never below 2000', () => {
    const config = parseConfig({ DATABASE_PATH: ':memory:', RATE_LIMIT_EMPLOYEE_PER_MINUTE: '10' });
    expect(config.rateLimits.employee).toBe(2000);
  });

  test("an employee's write limit follows its request limit and is never below it", () => {
    const writesOf = (env: Record<string, string>) =>
      parseConfig({ DATABASE_PATH: ':memory:', ...env }).rateLimits.writes;
    expect(writesOf({ RATE_LIMIT_EMPLOYEE_PER_MINUTE: '8000' })).toEqual({
      customer: 300,
      employee: 8000,
    });
    expect(writesOf({ RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '100' }).employee).toBe(5000);
    expect(
      writesOf({
        RATE_LIMIT_EMPLOYEE_PER_MINUTE: '10',
        RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '1000',
      }).employee,
    ).toBe(2000);
    expect(writesOf({ RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '9000' }).employee).toBe(9000);
    expect(writesOf({ RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: '40' }).customer).toBe(40);
  });

  test('RP_ID follows PUBLIC_ORIGIN; several origins allowed', () => {
    const config = parseConfig({
      DATABASE_PATH: ':memory:',
      PUBLIC_ORIGIN: 'https://listings.example.com, https://www.listings.example.com',
    });
    expect(config.rpId).toBe('listings.example.com');
    expect(config.publicOrigins).toHaveLength(2);
  });

  test.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['RATE_LIMIT_EMPLOYEE_PER_MINUTE', 'abc'],
    ['TRUST_PROXY', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['JWT_SECRET', 'short'],
    ['PUBLIC_ORIGIN', 'not a url'],
    ['TLS_CERT_PATH', '/tmp/cert.pem'],
    ['IDEMPOTENCY_KEYS_PER_CALLER', '0'],
    ['IDEMPOTENCY_KEYS_PER_CALLER', '2.5'],
    ['RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE', '0'],
    ['RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE', 'many'],
    ['RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE', '100000001'],
    ['RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE', '2.5'],
    ['RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE', '-1'],
  ])('%s=%s is refused naming the variable', (name, value) => {
    expect(() => parseConfig({ DATABASE_PATH: ':memory:', [name]: value })).toThrow(ConfigError);
    try {
      parseConfig({ DATABASE_PATH: ':memory:', [name]: value });
    } catch (error) {
      expect((error as Error).message.startsWith(`${name}:`)).toBe(true);
    }
  });
});

describe('start-up with a bad value', () => {
  test.each([
    ['PORT', 'abc'],
    ['RATE_LIMIT_EMPLOYEE_PER_MINUTE', 'abc'],
  ])('%s=%s exits 1 with one line naming it', async (name, value) => {
    const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
      env: { ...process.env, DATABASE_PATH: ':memory:', [name]: value },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const code = await proc.exited;
    const stderr = await new Response(proc.stderr).text();
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${name}:`);
  });
});

describe('replication settings (REPLICA_*)', () => {
  const file = () => join(tempDir(), 'app.db');

  test('off by default; on with REPLICA_URL, with the default interval and retention', () => {
    expect(parseConfig({ DATABASE_PATH: file() }).replica).toBeUndefined();
    expect(
      parseConfig({ DATABASE_PATH: file(), REPLICA_URL: 's3://bucket/listings' }).replica,
    ).toEqual({
      url: 's3://bucket/listings',
      syncInterval: '500ms',
      retention: '72h',
      s3Endpoint: undefined,
      sftpKeyPath: undefined,
      metricsPort: 9090,
      maxLagMs: 60_000,
    });
  });

  test('an sftp replica takes a readable key file', () => {
    const key = join(tempDir(), 'id_ed25519');
    writeFileSync(key, 'key');
    const env = { DATABASE_PATH: file(), REPLICA_URL: 'sftp://backup@nas:2222/srv/listings' };
    expect(parseConfig({ ...env, REPLICA_SFTP_KEY_PATH: key }).replica?.sftpKeyPath).toBe(key);
  });

  test.each([
    [{ REPLICA_URL: 'http://example.com/x' }, 'REPLICA_URL: not a file:///path'],
    [{ REPLICA_URL: 'file://relative' }, 'REPLICA_URL: not a file:///path'],
    [{ REPLICA_URL: 'sftp://nas/srv' }, 'REPLICA_URL: not a file:///path'],
    [{ REPLICA_URL: 'sftp://u:secret@nas/srv' }, 'REPLICA_URL: not a file:///path'],
    [{ REPLICA_URL: 'sftp://u@nas/srv' }, 'REPLICA_SFTP_KEY_PATH: required with an sftp://'],
    [
      { REPLICA_URL: 'sftp://u@nas/srv', REPLICA_SFTP_KEY_PATH: '/no/such/key' },
      'REPLICA_SFTP_KEY_PATH: "/no/such/key" cannot be read',
    ],
    [{ REPLICA_SYNC_INTERVAL: '1 second' }, 'REPLICA_SYNC_INTERVAL: not a duration'],
    [{ REPLICA_SYNC_INTERVAL: '0s' }, 'REPLICA_SYNC_INTERVAL: must be longer than zero'],
    [{ REPLICA_RETENTION: '3d' }, 'REPLICA_RETENTION: not a duration'],
    [
      { REPLICA_URL: 'file:///replica', REPLICA_S3_ENDPOINT: 'http://minio:9000' },
      'REPLICA_S3_ENDPOINT: is set, but REPLICA_URL is not an s3:// URL',
    ],
    [
      { REPLICA_URL: 's3://bucket/x', REPLICA_S3_ENDPOINT: 'minio:9000' },
      'REPLICA_S3_ENDPOINT: not an http:// or https:// URL',
    ],
    [
      { REPLICA_URL: 's3://bucket/x', REPLICA_SFTP_KEY_PATH: '/key' },
      'REPLICA_SFTP_KEY_PATH: is set, but REPLICA_URL is not an sftp:// URL',
    ],
    [
      { REPLICA_URL: 'file:///replica', DATABASE_PATH: ':memory:' },
      'REPLICA_URL: DATABASE_PATH must be a plain file to replicate (got ":memory:")',
    ],
    [
      {
        REPLICA_URL: 'file:///replica',
        DATABASE_URL: 'postgres://localhost/x',
        JWT_SECRET: 'x'.repeat(40),
      },
      "REPLICA_URL: replicates the SQLite file only; with DATABASE_URL use PostgreSQL's own replication",
    ],
  ])('%p is refused in one line naming the variable', (env, message) => {
    let thrown: unknown;
    try {
      parseConfig({ DATABASE_PATH: file(), ...env });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toStartWith(message);
    expect((thrown as Error).message).not.toContain('\n');
    expect((thrown as Error).message).not.toContain('secret');
  });
});
