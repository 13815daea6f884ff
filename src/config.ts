import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { CronPattern } from 'croner';
import { z } from 'zod';
import { type AddressRange, defaultTrustedRanges, parseRanges } from '@/kernel/addresses';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'on', 'off', 'yes', 'no'])
  .transform((value) => ['true', '1', 'on', 'yes'].includes(value));

/** JWT_SECRET, or the jwt-secret file, is at least this long. */
export const MIN_SECRET_LENGTH = 32;

const port = z.coerce.number().int().min(0).max(65535);
const perMinute = z.coerce.number().int().min(1).max(1_000_000);
const quota = z.coerce.number().int().min(1).max(1_000_000_000);

/** A croner pattern (5 or 6 fields, or a nickname such as `@hourly`), read in UTC. */
export function isCronPattern(pattern: string): boolean {
  try {
    new CronPattern(pattern, 'UTC');
    return true;
  } catch {
    return false;
  }
}

const cron = z.string().refine(isCronPattern, 'not a valid cron pattern (e.g. "*/5 * * * *")');

/** The environment variables (README, Configuration), each validated once at start-up. */
export const EnvSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_PATH: z.string().min(1).default('./data/app.db'),
  JWT_SECRET: z.string().min(MIN_SECRET_LENGTH, 'must be at least 32 characters').optional(),
  PUBLIC_ORIGIN: z.string().optional(),
  RP_ID: z.string().min(1).optional(),
  RP_NAME: z.string().min(1).default('Listings Service'),
  TLS_CERT_PATH: z.string().min(1).optional(),
  TLS_KEY_PATH: z.string().min(1).optional(),
  TRUST_PROXY: booleanFlag.default(false),
  TRUSTED_PROXIES: z
    .string()
    .refine(
      (value) => 'ranges' in parseRanges(value),
      'not a comma-separated list of IP addresses and CIDR ranges (e.g. "10.0.0.0/8, fc00::/7")',
    )
    .optional(),
  // `off` disables the customer API limiter (no counting, no 429, no headers): benchmarks only.
  RATE_LIMITS: booleanFlag.default(true),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: perMinute.default(60),
  RATE_LIMIT_CUSTOMER_PER_MINUTE: perMinute.default(120),
  // An employee's limit is never below 2000 per minute: lower values are raised.
  RATE_LIMIT_EMPLOYEE_PER_MINUTE: perMinute.default(5000).transform((v) => Math.max(v, 2000)),
  WORKERS: booleanFlag.default(true),
  // Default schedules of the worker jobs (UTC cron).
  JOB_PLAN_WINDOW_RESET_CRON: cron.default('* * * * *'),
  JOB_UNIT_COUNTER_RECONCILE_CRON: cron.default('*/5 * * * *'),
  JOB_STATIC_PAGE_CACHE_WARM_CRON: cron.default('*/10 * * * *'),
  BACKUP_CRON: cron.default('0 3 * * *'),
  BACKUP_DIR: z.string().min(1).optional(),
  BACKUP_KEEP: z.coerce.number().int().min(1).max(10_000).default(7),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  // Unset: `pretty` when stdout is a terminal, else `json`.
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  CORS_ORIGINS: z.string().optional(),
  STATIC_PAGES_CACHE: booleanFlag.default(true),
  READ_CACHE: booleanFlag.default(true),
  QUOTA_PROPERTIES_PER_OWNER: quota.default(10_000),
  QUOTA_UNITS_PER_PROPERTY: quota.default(1_000),
  // Live Idempotency-Key records per caller; beyond it the caller's oldest are dropped.
  IDEMPOTENCY_KEYS_PER_CALLER: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  // Accounts: who may sign up, and what bounds the costly or storing auth routes.
  SIGN_UP: z.enum(['open', 'closed']).default('open'),
  SIGN_UP_PER_IP_PER_HOUR: perMinute.default(10),
  PASSKEY_OPTIONS_PER_IP_PER_MINUTE: perMinute.default(30),
  HASH_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
  HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).optional(),
  METRICS_TOKEN: z.string().min(MIN_SECRET_LENGTH, 'must be at least 32 characters').optional(),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  port: number;
  host: string;
  databasePath: string;
  jwtSecret: string;
  publicOrigins: string[];
  rpId: string;
  rpName: string;
  tls?: { certPath: string; keyPath: string };
  trustProxy: boolean;
  /** With TRUST_PROXY: the proxies whose X-Forwarded-For entries are believed. */
  trustedProxies: readonly AddressRange[];
  rateLimits: { enabled: boolean; anonymous: number; customer: number; employee: number };
  workers: boolean;
  /** Cron patterns (UTC) of the worker jobs. */
  jobSchedules: {
    planWindowReset: string;
    unitCounterReconcile: string;
    staticPageCacheWarm: string;
    databaseBackup: string;
  };
  /** Where the database-backup job writes (default `backups/` beside the database) and how many it keeps. */
  backups: { dir: string; keep: number };
  logLevel: Env['LOG_LEVEL'];
  /** `pretty`: one coloured human-readable line per request (a terminal); `json`: one object per line. */
  logFormat: NonNullable<Env['LOG_FORMAT']>;
  corsOrigins: string[];
  /** In-process cache of the static-page reads; off for benchmarks. */
  staticPagesCache: boolean;
  /** In-process caches of property reads and list pages, dropped on any write; off for benchmarks. */
  readCache: boolean;
  /** Storage quotas of customers (employees are exempt). */
  quotas: { propertiesPerOwner: number; unitsPerProperty: number };
  /** Live Idempotency-Key records kept per caller. */
  idempotencyKeysPerCaller: number;
  /** Sign-up policy and the per-IP bounds of the account routes. */
  accounts: {
    signUp: 'open' | 'closed';
    signUpsPerIpPerHour: number;
    passkeyOptionsPerIpPerMinute: number;
  };
  /** Password hashes and verifications at once (argon2id), and how many may wait. */
  hashing: { concurrency: number; queue: number };
  /** A bearer token that may read GET /metrics (besides employees), for a scraper. */
  metricsToken?: string;
}

export class ConfigError extends Error {}

/** Variables whose values never appear in an error message. */
const SECRET_VARIABLES = new Set(['JWT_SECRET', 'METRICS_TOKEN']);

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

function originsOf(env: Env): string[] {
  const origins = list(env.PUBLIC_ORIGIN);
  if (origins.length === 0) return [`http://localhost:${env.PORT}`];
  for (const origin of origins) {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
      throw new ConfigError(
        `PUBLIC_ORIGIN: "${origin}" is not an origin (expected e.g. https://example.com)`,
      );
    }
  }
  return origins;
}

/**
 * JWT_SECRET, when unset, is generated once and kept beside the database so
 * tokens survive restarts. An in-memory database gets a
 * throw-away secret.
 */
export function loadOrCreateSecret(databasePath: string): string {
  if (databasePath === ':memory:') return randomBytes(32).toString('base64url');
  const file = join(dirname(databasePath), 'jwt-secret');
  if (existsSync(file)) return readSecretFile(file);
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secret;
}

function trustedProxiesOf(value: string | undefined): AddressRange[] {
  if (value === undefined) return defaultTrustedRanges();
  const parsed = parseRanges(value);
  return 'ranges' in parsed ? parsed.ranges : [];
}

/**
 * An existing secret file is used only if no one but its owner can read it
 * (mode 0600 or stricter) and it is as long as JWT_SECRET must be.
 */
function readSecretFile(file: string): string {
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) {
    throw new ConfigError(
      `${file}: open to group or others (mode ${mode.toString(8).padStart(4, '0')}); run chmod 600 on it`,
    );
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(
      `${file}: the secret must be at least ${MIN_SECRET_LENGTH} characters (got ${secret.length}, not shown)`,
    );
  }
  return secret;
}

/**
 * Parses the environment; throws ConfigError with one line naming the variable.
 * `terminal` (stdout is a TTY) only picks LOG_FORMAT's default.
 */
export function parseConfig(
  source: Record<string, string | undefined>,
  terminal = process.stdout.isTTY === true,
): Config {
  // An empty variable means "not set" (as in `PORT= bun start`).
  const env = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== ''));
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0]);
    // A rejected secret is still a secret: its length is enough to act on.
    const got = SECRET_VARIABLES.has(name)
      ? `${source[name]?.length ?? 0} characters, not shown`
      : `"${source[name]}"`;
    throw new ConfigError(`${name}: ${issue.message} (got ${got})`);
  }
  const e = parsed.data;
  if (Boolean(e.TLS_CERT_PATH) !== Boolean(e.TLS_KEY_PATH)) {
    throw new ConfigError('TLS_CERT_PATH: TLS_CERT_PATH and TLS_KEY_PATH must be set together');
  }
  const publicOrigins = originsOf(e);
  const hashConcurrency = e.HASH_CONCURRENCY ?? availableParallelism();
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    databasePath: e.DATABASE_PATH,
    jwtSecret: e.JWT_SECRET ?? loadOrCreateSecret(e.DATABASE_PATH),
    publicOrigins,
    rpId: e.RP_ID ?? new URL(publicOrigins[0]!).hostname,
    rpName: e.RP_NAME,
    tls:
      e.TLS_CERT_PATH && e.TLS_KEY_PATH
        ? { certPath: e.TLS_CERT_PATH, keyPath: e.TLS_KEY_PATH }
        : undefined,
    trustProxy: e.TRUST_PROXY,
    trustedProxies: trustedProxiesOf(e.TRUSTED_PROXIES),
    rateLimits: {
      enabled: e.RATE_LIMITS,
      anonymous: e.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
      customer: e.RATE_LIMIT_CUSTOMER_PER_MINUTE,
      employee: e.RATE_LIMIT_EMPLOYEE_PER_MINUTE,
    },
    workers: e.WORKERS,
    jobSchedules: {
      planWindowReset: e.JOB_PLAN_WINDOW_RESET_CRON,
      unitCounterReconcile: e.JOB_UNIT_COUNTER_RECONCILE_CRON,
      staticPageCacheWarm: e.JOB_STATIC_PAGE_CACHE_WARM_CRON,
      databaseBackup: e.BACKUP_CRON,
    },
    backups: {
      dir: e.BACKUP_DIR ?? join(dirname(e.DATABASE_PATH), 'backups'),
      keep: e.BACKUP_KEEP,
    },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT ?? (terminal ? 'pretty' : 'json'),
    corsOrigins: list(e.CORS_ORIGINS),
    staticPagesCache: e.STATIC_PAGES_CACHE,
    readCache: e.READ_CACHE,
    quotas: {
      propertiesPerOwner: e.QUOTA_PROPERTIES_PER_OWNER,
      unitsPerProperty: e.QUOTA_UNITS_PER_PROPERTY,
    },
    idempotencyKeysPerCaller: e.IDEMPOTENCY_KEYS_PER_CALLER,
    accounts: {
      signUp: e.SIGN_UP,
      signUpsPerIpPerHour: e.SIGN_UP_PER_IP_PER_HOUR,
      passkeyOptionsPerIpPerMinute: e.PASSKEY_OPTIONS_PER_IP_PER_MINUTE,
    },
    hashing: { concurrency: hashConcurrency, queue: e.HASH_QUEUE ?? 2 * hashConcurrency },
    metricsToken: e.METRICS_TOKEN,
  });
}
