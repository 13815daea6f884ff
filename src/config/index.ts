import { accessSync, constants, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { type AddressRange, defaultTrustedRanges, parseRanges } from '@/kernel/addresses';
import type { Config, MailSettings, RedisSettings, ReplicaSettings } from './config';
import { MAIL_NOTIFICATION_KINDS, type MailNotificationKind } from './config';
import { type Env, EnvSchema } from './env';
import { ConfigError, configErrorOf } from './error';
import { splitMemoryBudget } from './memory-budget';
import { readPasskeyProviders } from './passkey-providers';
import { loadOrCreateSecret } from './secret-file';

export type { Config, MailSettings, RedisSettings, ReplicaSettings, SmtpSettings } from './config';
export { MAIL_NOTIFICATION_KINDS, type MailNotificationKind } from './config';
export { type Env, EnvSchema, isCronPattern, isMailbox, MIN_SECRET_LENGTH } from './env';
export { ConfigError, shownValue } from './error';
export { loadOrCreateSecret } from './secret-file';

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

function trustedProxiesOf(value: string | undefined): AddressRange[] {
  if (value === undefined) return defaultTrustedRanges();
  const parsed = parseRanges(value);
  return 'ranges' in parsed ? parsed.ranges : [];
}

/** REDIS_URL with its prefix and, for TLS, the CA file's certificates (read once, here). */
function redisOf(e: Env): RedisSettings | undefined {
  if (e.REDIS_TLS_CA_FILE === undefined) {
    return e.REDIS_URL ? { url: e.REDIS_URL, prefix: e.REDIS_PREFIX } : undefined;
  }
  const caFile = `REDIS_TLS_CA_FILE: "${e.REDIS_TLS_CA_FILE}"`;
  if (!e.REDIS_URL || new URL(e.REDIS_URL).protocol !== 'rediss:') {
    throw new ConfigError(`${caFile} is set, but REDIS_URL is not a rediss:// URL`);
  }
  const tlsCa = readNamedFile('REDIS_TLS_CA_FILE', e.REDIS_TLS_CA_FILE);
  if (!tlsCa.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError(`${caFile} holds no PEM certificate`);
  }
  return { url: e.REDIS_URL, prefix: e.REDIS_PREFIX, tlsCa };
}

/** The contents of a file a variable names, read once at start; one line naming the variable if it cannot be. */
function readNamedFile(variable: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new ConfigError(`${variable}: "${path}" cannot be read`);
  }
}

const SMTP_DEFAULT_PORTS = { implicit: 465, starttls: 587, none: 25 } as const;
/** Used only when no SMTP server is set, where nothing leaves the machine. */
const LOG_ONLY_FROM = 'listings@localhost';

/** MAIL_NOTIFICATIONS: a comma-separated list of kinds, or `none`. */
function notificationsOf(written: string): MailNotificationKind[] {
  if (written === 'none') return [];
  const kinds = written.split(',').map((kind) => kind.trim());
  const unknown = kinds.find(
    (kind) => !MAIL_NOTIFICATION_KINDS.includes(kind as MailNotificationKind),
  );
  if (unknown !== undefined) {
    throw new ConfigError(
      `MAIL_NOTIFICATIONS: "${unknown}" is not one of ${MAIL_NOTIFICATION_KINDS.join(', ')} (or none)`,
    );
  }
  return [...new Set(kinds as MailNotificationKind[])];
}

/** SMTP_* and MAIL_FROM; each variable that cannot apply is refused rather than ignored. */
function mailOf(e: Env): MailSettings {
  const notifications = notificationsOf(e.MAIL_NOTIFICATIONS);
  const companions = [
    'SMTP_PORT',
    'SMTP_USER',
    'SMTP_PASSWORD',
    'SMTP_PASSWORD_FILE',
    'SMTP_TLS_CA_FILE',
  ] as const;
  if (!e.SMTP_HOST) {
    const stray = companions.find((name) => e[name] !== undefined);
    if (stray) throw new ConfigError(`${stray}: is set, but SMTP_HOST is not`);
    return { from: e.MAIL_FROM ?? LOG_ONLY_FROM, notifications };
  }
  if (!e.MAIL_FROM) {
    throw new ConfigError(
      'MAIL_FROM: required with SMTP_HOST (e.g. "Listings <listings@example.com>")',
    );
  }
  if (e.SMTP_PASSWORD !== undefined && e.SMTP_PASSWORD_FILE !== undefined) {
    throw new ConfigError('SMTP_PASSWORD_FILE: set SMTP_PASSWORD or SMTP_PASSWORD_FILE, not both');
  }
  const password =
    e.SMTP_PASSWORD_FILE === undefined
      ? e.SMTP_PASSWORD
      : readNamedFile('SMTP_PASSWORD_FILE', e.SMTP_PASSWORD_FILE).replace(/\r?\n$/, '');
  if (password === '')
    throw new ConfigError(`SMTP_PASSWORD_FILE: "${e.SMTP_PASSWORD_FILE}" is empty`);
  if ((e.SMTP_USER === undefined) !== (password === undefined)) {
    throw new ConfigError(
      e.SMTP_USER === undefined
        ? 'SMTP_USER: required with SMTP_PASSWORD or SMTP_PASSWORD_FILE'
        : 'SMTP_PASSWORD: SMTP_USER is set, so SMTP_PASSWORD or SMTP_PASSWORD_FILE is required',
    );
  }
  if (e.SMTP_TLS === 'none' && e.SMTP_TLS_CA_FILE !== undefined) {
    throw new ConfigError('SMTP_TLS_CA_FILE: is set, but SMTP_TLS is none');
  }
  let tlsCa: string | undefined;
  if (e.SMTP_TLS_CA_FILE !== undefined) {
    tlsCa = readNamedFile('SMTP_TLS_CA_FILE', e.SMTP_TLS_CA_FILE);
    if (!tlsCa.includes('-----BEGIN CERTIFICATE-----')) {
      throw new ConfigError(`SMTP_TLS_CA_FILE: "${e.SMTP_TLS_CA_FILE}" holds no PEM certificate`);
    }
  }
  return {
    from: e.MAIL_FROM,
    notifications,
    smtp: {
      host: e.SMTP_HOST,
      port: e.SMTP_PORT ?? SMTP_DEFAULT_PORTS[e.SMTP_TLS],
      tls: e.SMTP_TLS,
      ...(e.SMTP_USER !== undefined && password !== undefined
        ? { auth: { user: e.SMTP_USER, password } }
        : {}),
      ...(tlsCa === undefined ? {} : { tlsCa }),
    },
  };
}

/** Milliseconds of a duration as Litestream writes it ("1h30m", "500ms"), already validated. */
function durationMs(text: string): number {
  const unitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)(ms|s|m|h)/g))
    total += Number(amount) * unitMs[unit!]!;
  return total;
}

/** The folder of a file:// replica that BACKUP_TO_REPLICA copies the backups into. */
export const REPLICA_BACKUPS_FOLDER = 'backups';

/**
 * BACKUP_TO_REPLICA: the folder of a file:// replica the backups are copied
 * into, beside Litestream's own `generations/`. Litestream reaches sftp://
 * and s3:// replicas itself; the service does not, so those are refused.
 */
function backupsInReplicaOf(e: Env): string | undefined {
  if (!e.BACKUP_TO_REPLICA) return undefined;
  if (!e.REPLICA_URL) {
    throw new ConfigError('BACKUP_TO_REPLICA: needs REPLICA_URL (a file:// replica)');
  }
  const url = new URL(e.REPLICA_URL);
  if (url.protocol !== 'file:') {
    throw new ConfigError(
      `BACKUP_TO_REPLICA: only a file:// REPLICA_URL is supported (got ${url.protocol}//); copy the backups off the host yourself (docs/operations.md, Backups)`,
    );
  }
  return join(decodeURIComponent(url.pathname), REPLICA_BACKUPS_FOLDER);
}

/** REPLICA_URL and its companions; each one that cannot apply is refused rather than ignored. */
function replicaOf(e: Env): ReplicaSettings | undefined {
  const scheme = e.REPLICA_URL ? new URL(e.REPLICA_URL).protocol : undefined;
  if (e.REPLICA_S3_ENDPOINT !== undefined && scheme !== 's3:') {
    throw new ConfigError('REPLICA_S3_ENDPOINT: is set, but REPLICA_URL is not an s3:// URL');
  }
  if (e.REPLICA_SFTP_KEY_PATH !== undefined && scheme !== 'sftp:') {
    throw new ConfigError('REPLICA_SFTP_KEY_PATH: is set, but REPLICA_URL is not an sftp:// URL');
  }
  if (!e.REPLICA_URL) return undefined;
  if (e.DATABASE_URL) {
    throw new ConfigError(
      "REPLICA_URL: replicates the SQLite file only; with DATABASE_URL use PostgreSQL's own replication and backups (docs/postgresql.md)",
    );
  }
  if (e.DATABASE_PATH === ':memory:' || e.DATABASE_PATH.startsWith('file:')) {
    throw new ConfigError(
      `REPLICA_URL: DATABASE_PATH must be a plain file to replicate (got "${e.DATABASE_PATH}")`,
    );
  }
  if (scheme === 'sftp:') {
    if (e.REPLICA_SFTP_KEY_PATH === undefined) {
      throw new ConfigError(
        'REPLICA_SFTP_KEY_PATH: required with an sftp:// REPLICA_URL (the private key Litestream signs in with)',
      );
    }
    try {
      accessSync(e.REPLICA_SFTP_KEY_PATH, constants.R_OK);
    } catch {
      throw new ConfigError(`REPLICA_SFTP_KEY_PATH: "${e.REPLICA_SFTP_KEY_PATH}" cannot be read`);
    }
  }
  return {
    url: e.REPLICA_URL,
    syncInterval: e.REPLICA_SYNC_INTERVAL,
    retention: e.REPLICA_RETENTION,
    s3Endpoint: e.REPLICA_S3_ENDPOINT,
    sftpKeyPath: e.REPLICA_SFTP_KEY_PATH,
    metricsPort: e.REPLICA_METRICS_PORT,
    maxLagMs: durationMs(e.REPLICA_MAX_LAG),
  };
}

/**
 * DATABASE_PATH and DATABASE_URL alone, for the commands that copy between
 * the two stores: they need no JWT secret, so none is generated beside the file.
 */
export function parseDatabaseSettings(source: Record<string, string | undefined>): {
  databasePath: string;
  databaseUrl?: string;
} {
  const env = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== ''));
  const parsed = EnvSchema.pick({ DATABASE_PATH: true, DATABASE_URL: true }).safeParse(env);
  if (!parsed.success) throw configErrorOf(parsed.error, source);
  return { databasePath: parsed.data.DATABASE_PATH, databaseUrl: parsed.data.DATABASE_URL };
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
  if (!parsed.success) throw configErrorOf(parsed.error, source);
  const e = parsed.data;
  // Ignoring a setting the operator chose would change the memory in use unseen.
  if (env.READ_CACHE_MB !== undefined) {
    throw new ConfigError(
      'READ_CACHE_MB: replaced by MEMORY_BUDGET_MB, which sizes the read cache and SQLite page cache together (docs/performance.md)',
    );
  }
  if (Boolean(e.TLS_CERT_PATH) !== Boolean(e.TLS_KEY_PATH)) {
    throw new ConfigError('TLS_CERT_PATH: TLS_CERT_PATH and TLS_KEY_PATH must be set together');
  }
  // A secret generated beside DATABASE_PATH would be one per host: tokens
  // signed by one instance would not pass on another.
  const replica = replicaOf(e);
  if (e.DATABASE_URL && !e.JWT_SECRET) {
    throw new ConfigError(
      'JWT_SECRET: must be set with DATABASE_URL, to the same value on every instance',
    );
  }
  const publicOrigins = originsOf(e);
  const hashConcurrency = e.HASH_CONCURRENCY ?? availableParallelism();
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    idleTimeoutSeconds: e.IDLE_TIMEOUT_SECONDS,
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
    ipv6LimitPrefix: e.RATE_LIMIT_IPV6_PREFIX,
    rateLimits: {
      enabled: e.RATE_LIMITS,
      anonymous: e.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
      customer: e.RATE_LIMIT_CUSTOMER_PER_MINUTE,
      employee: e.RATE_LIMIT_EMPLOYEE_PER_MINUTE,
      writes: {
        customer: e.RATE_LIMIT_CUSTOMER_WRITES_PER_MINUTE,
        employee: Math.max(
          e.RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE ?? e.RATE_LIMIT_EMPLOYEE_PER_MINUTE,
          e.RATE_LIMIT_EMPLOYEE_PER_MINUTE,
        ),
      },
    },
    workers: e.WORKERS,
    jobSchedules: {
      planWindowReset: e.JOB_PLAN_WINDOW_RESET_CRON,
      unitCounterReconcile: e.JOB_UNIT_COUNTER_RECONCILE_CRON,
      staticPageCacheWarm: e.JOB_STATIC_PAGE_CACHE_WARM_CRON,
      eventsPrune: e.JOB_EVENTS_PRUNE_CRON,
      webhookDelivery: e.JOB_WEBHOOK_DELIVERY_CRON,
      databaseBackup: e.BACKUP_CRON,
      auditRetention: e.JOB_AUDIT_RETENTION_CRON,
      mailDelivery: e.JOB_MAIL_DELIVERY_CRON,
    },
    events: {
      retentionDays: e.EVENTS_RETENTION_DAYS,
      longPollsPerCaller: e.EVENTS_LONG_POLLS_PER_CALLER,
      longPollsTotal: e.EVENTS_LONG_POLLS_TOTAL,
    },
    webhooks: {
      allowHttp: e.WEBHOOKS_ALLOW_HTTP,
      allowPrivate: e.WEBHOOKS_ALLOW_PRIVATE,
      concurrency: e.WEBHOOK_DELIVERY_CONCURRENCY,
    },
    webhookQuotas: {
      endpointsPerCustomer: e.WEBHOOK_ENDPOINTS_PER_CUSTOMER,
      pendingDeliveriesPerEndpoint: e.WEBHOOK_PENDING_DELIVERIES_PER_ENDPOINT,
      pendingDeliveriesPerOwner: e.WEBHOOK_PENDING_DELIVERIES_PER_OWNER,
      finishedDeliveriesKeptPerEndpoint: e.WEBHOOK_FINISHED_DELIVERIES_KEPT_PER_ENDPOINT,
    },
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    auditRowsPerCallerPerHour: e.AUDIT_ROWS_PER_CALLER_PER_HOUR,
    passkeyProviders: readPasskeyProviders(e.PASSKEY_PROVIDERS_FILE),
    backups: {
      dir: e.BACKUP_DIR ?? join(dirname(e.DATABASE_PATH), 'backups'),
      keep: e.BACKUP_KEEP,
      replicaDir: backupsInReplicaOf(e),
    },
    diskFreeThresholdBytes: e.DISK_FREE_THRESHOLD_MB * 1024 * 1024,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT ?? (terminal ? 'pretty' : 'json'),
    commandPrefix: e.LISTINGS_COMMAND_PREFIX,
    corsOrigins: list(e.CORS_ORIGINS),
    staticPagesCache: e.STATIC_PAGES_CACHE,
    readCache: e.READ_CACHE,
    ...splitMemoryBudget(e.MEMORY_BUDGET_MB, e.DATABASE_URL ? 'postgres' : 'sqlite'),
    postgresPoolSize: e.POSTGRES_POOL_SIZE,
    quotas: {
      propertiesPerOwner: e.QUOTA_PROPERTIES_PER_OWNER,
      unitsPerProperty: e.QUOTA_UNITS_PER_PROPERTY,
    },
    idempotencyKeysPerCaller: e.IDEMPOTENCY_KEYS_PER_CALLER,
    accounts: {
      signUp: e.SIGN_UP,
      signUpsPerIpPerHour: e.SIGN_UP_PER_IP_PER_HOUR,
      passkeyOptionsPerIpPerMinute: e.PASSKEY_OPTIONS_PER_IP_PER_MINUTE,
      passwordHashesPerAccountPerMinute: e.PASSWORD_HASHES_PER_ACCOUNT_PER_MINUTE,
      passwordHashesPerIpPerMinute: e.PASSWORD_HASHES_PER_IP_PER_MINUTE,
      sessionsPerAccount: e.SESSIONS_PER_ACCOUNT,
      passwordResetsPerIpPerHour: e.PASSWORD_RESETS_PER_IP_PER_HOUR,
      passwordResetsPerAccountPerHour: e.PASSWORD_RESETS_PER_ACCOUNT_PER_HOUR,
      emailLinksPerAccountPerHour: e.EMAIL_LINKS_PER_ACCOUNT_PER_HOUR,
    },
    hashing: { concurrency: hashConcurrency, queue: e.HASH_QUEUE ?? 2 * hashConcurrency },
    metrics: e.METRICS,
    metricsToken: e.METRICS_TOKEN,
    redis: redisOf(e),
    replica,
    mail: mailOf(e),
  });
}
