import { CronPattern } from 'croner';
import { z } from 'zod';
import {
  DEFAULT_IPV6_LIMIT_PREFIX,
  MAX_IPV6_LIMIT_PREFIX,
  MIN_IPV6_LIMIT_PREFIX,
  parseRanges,
} from '@/kernel/addresses';

/** The changes of an account its holder is told of by mail, each one unless the operator turns it off. */
export const MAIL_NOTIFICATION_KINDS = [
  'password-changed',
  'passkey-added',
  'new-device',
  'account-disabled',
] as const;
export type MailNotificationKind = (typeof MAIL_NOTIFICATION_KINDS)[number];

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'on', 'off', 'yes', 'no'])
  .transform((value) => ['true', '1', 'on', 'yes'].includes(value));

/** JWT_SECRET, or the jwt-secret file, is at least this long. */
export const MIN_SECRET_LENGTH = 32;

const port = z.coerce.number().int().min(0).max(65535);
/** An employee's customer-API limit per minute is never below this (configured or set per employee). */
export const EMPLOYEE_MINIMUM_PER_MINUTE = 2000;

const perMinute = z.coerce.number().int().min(1).max(1_000_000);
// A batch counts each row it writes, so a write budget may need more room than a request budget.
const writesPerMinute = z.coerce.number().int().min(1).max(100_000_000);
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

/** A `redis://` or `rediss://` (TLS) URL with a host; user, password and database number optional. */
function isRedisUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
}

/**
 * A Litestream replica: `file:///path`, `sftp://user@host[:port]/path` or
 * `s3://bucket[/path]`; no password in it (an sftp key is a file of its own,
 * S3 keys come from the AWS variables Litestream reads itself).
 */
export function isReplicaUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.password !== '' || url.search !== '' || url.hash !== '') return false;
  if (url.protocol === 'file:') return url.hostname === '' && url.pathname.length > 1;
  if (url.protocol === 'sftp:')
    return url.username !== '' && url.hostname !== '' && url.pathname.length > 1;
  return url.protocol === 's3:' && url.hostname !== '' && url.username === '';
}

/** An address, alone or as `Display Name <address>`, with no line break (it becomes a header). */
export function isMailbox(value: string): boolean {
  const match = /^(?:([^<>\r\n"]*?)\s*<([^<>\s]+)>|([^<>\s]+))$/.exec(value);
  const address = match?.[2] ?? match?.[3];
  return address !== undefined && z.email().safeParse(address).success;
}

/** A Go duration as Litestream reads it: "1s", "500ms", "72h", "1h30m". */
const duration = z
  .string()
  .regex(/^(\d+(ms|s|m|h))+$/, 'not a duration such as "1s", "500ms", "72h" or "1h30m"')
  .refine((value) => /[1-9]/.test(value), 'must be longer than zero');

const cron = z.string().refine(isCronPattern, 'not a valid cron pattern (e.g. "*/5 * * * *")');

/** The environment variables (README, Configuration), each validated once at start-up. */
export const EnvSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  // Seconds a connection may send and receive nothing before it is closed (long polls get their wait + 10).
  IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(255).default(10),
  DATABASE_PATH: z.string().min(1).default('./data/app.db'),
  // PostgreSQL (docs/postgresql.md): set, the server keeps every row there instead of DATABASE_PATH.
  DATABASE_URL: z
    .string()
    .min(1)
    .refine((url) => /^postgres(ql)?:\/\/[^/]/.test(url) && URL.canParse(url), {
      message: 'not a postgres:// or postgresql:// URL',
    })
    .optional(),
  POSTGRES_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
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
  // Per-address limits count an IPv6 client by this many leading bits (128: its full address).
  RATE_LIMIT_IPV6_PREFIX: z.coerce
    .number()
    .int()
    .min(MIN_IPV6_LIMIT_PREFIX)
    .max(MAX_IPV6_LIMIT_PREFIX)
    .default(DEFAULT_IPV6_LIMIT_PREFIX),
  // `off` disables the customer API limiter (no counting, no 429, no headers): benchmarks only.
  RATE_LIMITS: booleanFlag.default(true),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: perMinute.default(60),
  RATE_LIMIT_CUSTOMER_PER_MINUTE: perMinute.default(120),
  // An employee's limit is never below the minimum: lower values are raised.
  RATE_LIMIT_EMPLOYEE_PER_MINUTE: perMinute
    .default(5000)
    .transform((v) => Math.max(v, EMPLOYEE_MINIMUM_PER_MINUTE)),
  // Writes outside /api/v1, per caller, in windows of their own (docs/request-pipeline.md).
  RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE: writesPerMinute.default(300),
  // Unset: RATE_LIMIT_EMPLOYEE_PER_MINUTE; a value below it is raised to it.
  RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: writesPerMinute.optional(),
  WORKERS: booleanFlag.default(true),
  // Default schedules of the worker jobs (UTC cron).
  JOB_PLAN_WINDOW_RESET_CRON: cron.default('* * * * *'),
  JOB_UNIT_COUNTER_RECONCILE_CRON: cron.default('*/5 * * * *'),
  JOB_STATIC_PAGE_CACHE_WARM_CRON: cron.default('*/10 * * * *'),
  JOB_EVENTS_PRUNE_CRON: cron.default('17 * * * *'),
  // Seconds first: every 10 seconds.
  JOB_WEBHOOK_DELIVERY_CRON: cron.default('*/10 * * * * *'),
  JOB_MAIL_DELIVERY_CRON: cron.default('*/10 * * * * *'),
  BACKUP_CRON: cron.default('0 3 * * *'),
  JOB_AUDIT_RETENTION_CRON: cron.default('30 3 * * *'),
  // Security and audit log events older than this many days are deleted by audit-retention.
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(365),
  // Rows one account action writes per account (or client address) an hour; the rest are counted into one.
  AUDIT_ROWS_PER_CALLER_PER_HOUR: z.coerce.number().int().min(0).max(100_000).default(20),
  BACKUP_DIR: z.string().min(1).optional(),
  // Free space (MiB) below which /health says degraded and the service's own jobs stop writing (docs/operations.md).
  DISK_FREE_THRESHOLD_MB: z.coerce.number().int().min(0).max(1_048_576).default(256),
  BACKUP_KEEP: z.coerce.number().int().min(1).max(10_000).default(7),
  // Each database-backup run is copied into backups/ of a file:// REPLICA_URL too.
  BACKUP_TO_REPLICA: booleanFlag.default(false),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  // Unset: `pretty` when stdout is a terminal, else `json`.
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  // How printed hints write the operator commands: `npm run` from a checkout, `bun run` in the image (no npm there).
  LISTINGS_COMMAND_PREFIX: z.string().trim().min(1).default('npm run'),
  CORS_ORIGINS: z.string().optional(),
  STATIC_PAGES_CACHE: booleanFlag.default(true),
  READ_CACHE: booleanFlag.default(true),
  // What SQLite's page cache and the read cache hold together, in MiB (src/config/memory-budget.ts).
  MEMORY_BUDGET_MB: z.coerce.number().int().min(2).max(65_536).default(80),
  METRICS: booleanFlag.default(true),
  QUOTA_PROPERTIES_PER_OWNER: quota.default(10_000),
  QUOTA_UNITS_PER_PROPERTY: quota.default(1_000),
  // Live Idempotency-Key records per caller; beyond it the caller's oldest are dropped.
  IDEMPOTENCY_KEYS_PER_CALLER: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  // Accounts: who may sign up, and what bounds the costly or storing auth routes.
  // `verify`: open, and a new account uses the API once its address is verified (docs/accounts.md#email-verification).
  SIGN_UP: z.enum(['open', 'verify', 'closed']).default('open'),
  SIGN_UP_PER_IP_PER_HOUR: perMinute.default(10),
  PASSKEY_OPTIONS_PER_IP_PER_MINUTE: perMinute.default(30),
  // Requests that hash a password (sign-in, sign-up, password changes), successes included.
  PASSWORD_HASHES_PER_ACCOUNT_PER_MINUTE: perMinute.default(5),
  PASSWORD_HASHES_PER_IP_PER_MINUTE: perMinute.default(30),
  // Password reset requests an hour: per client address, and per typed email (docs/accounts.md#password-reset).
  PASSWORD_RESETS_PER_IP_PER_HOUR: perMinute.default(10),
  PASSWORD_RESETS_PER_ACCOUNT_PER_HOUR: perMinute.default(3),
  // Verification links resent and changes of address asked for, per account an hour.
  EMAIL_LINKS_PER_ACCOUNT_PER_HOUR: perMinute.default(5),
  // Live browser sessions per account; a new sign-in past it ends the oldest.
  SESSIONS_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(50),
  // A JSON file of AAGUID → provider name, over the vendored list (src/accounts/providers).
  PASSKEY_PROVIDERS_FILE: z.string().min(1).optional(),
  HASH_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
  HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).optional(),
  // Events older than this many days are pruned from the feed (a cursor before them: 410).
  EVENTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  // Long polls of the feed (`wait`) one process holds open at once: per caller, and in all.
  EVENTS_LONG_POLLS_PER_CALLER: z.coerce.number().int().min(1).max(10_000).default(5),
  EVENTS_LONG_POLLS_TOTAL: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  // Webhook URLs: plain http, and private or loopback addresses, only for local use and tests.
  WEBHOOKS_ALLOW_HTTP: booleanFlag.default(false),
  WEBHOOKS_ALLOW_PRIVATE: booleanFlag.default(false),
  // What one party may make the service store for webhooks (docs/events-and-webhooks.md).
  WEBHOOK_ENDPOINTS_PER_CUSTOMER: quota.default(20),
  WEBHOOK_PENDING_DELIVERIES_PER_ENDPOINT: quota.default(10_000),
  WEBHOOK_PENDING_DELIVERIES_PER_OWNER: quota.default(20_000),
  WEBHOOK_FINISHED_DELIVERIES_KEPT_PER_ENDPOINT: quota.default(1_000),
  // Webhook attempts in flight at once in one process; an owner gets a quarter of them.
  WEBHOOK_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
  // Set: rate limits, sign-in guessing counters and job leadership live in Redis, shared by instances.
  REDIS_URL: z
    .string()
    .refine(isRedisUrl, 'not a redis:// or rediss:// URL (e.g. "redis://127.0.0.1:6379")')
    .optional(),
  // Every key this service writes starts with it, so deployments and tests sharing a server never collide.
  REDIS_PREFIX: z
    .string()
    .regex(/^[\w.:-]{1,64}$/, 'letters, digits and . _ : - only, at most 64')
    .default('listings:'),
  // A PEM file of the CA that signed a rediss:// server's certificate, when not a public one.
  REDIS_TLS_CA_FILE: z.string().min(1).optional(),
  // Continuous replication of the SQLite file by Litestream (docs/operations.md); unset: off.
  REPLICA_URL: z
    .string()
    .refine(
      isReplicaUrl,
      'not a file:///path, sftp://user@host[:port]/path or s3://bucket/path URL without a password',
    )
    .optional(),
  // Litestream looks at the WAL every 250 ms besides: a write reaches the replica within both.
  REPLICA_SYNC_INTERVAL: duration.default('500ms'),
  REPLICA_RETENTION: duration.default('72h'),
  // An S3-compatible store (MinIO, Backblaze B2, Cloudflare R2…): its API's URL.
  REPLICA_S3_ENDPOINT: z
    .string()
    .refine((url) => /^https?:\/\/[^/]/.test(url) && URL.canParse(url), {
      message: 'not an http:// or https:// URL',
    })
    .optional(),
  // The private key Litestream signs in to an sftp:// replica with.
  REPLICA_SFTP_KEY_PATH: z.string().min(1).optional(),
  // Litestream serves its figures on 127.0.0.1 at this port; the server reads them for /health and /metrics.
  REPLICA_METRICS_PORT: port
    .refine((value) => value > 0, 'must be a port from 1 to 65535')
    .default(9090),
  // No sync for this long while writes wait: /health says degraded, and the audit log records it.
  REPLICA_MAX_LAG: duration.default('60s'),
  METRICS_TOKEN: z.string().min(MIN_SECRET_LENGTH, 'must be at least 32 characters').optional(),
  // Outgoing mail (docs/configuration.md#mail); without SMTP_HOST every message is written to the log.
  SMTP_HOST: z.string().trim().min(1).optional(),
  // Unset: 465 with SMTP_TLS=implicit, 587 with starttls, 25 with none.
  SMTP_PORT: port.refine((value) => value > 0, 'must be a port from 1 to 65535').optional(),
  SMTP_TLS: z.enum(['implicit', 'starttls', 'none']).default('starttls'),
  SMTP_USER: z.string().min(1).optional(),
  SMTP_PASSWORD: z.string().min(1).optional(),
  SMTP_PASSWORD_FILE: z.string().min(1).optional(),
  // A PEM file of the CA that signed the SMTP server's certificate, when not a public one.
  SMTP_TLS_CA_FILE: z.string().min(1).optional(),
  MAIL_FROM: z
    .string()
    .trim()
    .refine(
      isMailbox,
      'not an address such as "listings@example.com" or "Listings <listings@example.com>"',
    )
    .optional(),
  // The security notifications mailed to account holders (docs/accounts.md#notifications).
  MAIL_NOTIFICATIONS: z.string().trim().default(MAIL_NOTIFICATION_KINDS.join(',')),
});

export type Env = z.infer<typeof EnvSchema>;
