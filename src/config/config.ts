import type { AddressRange } from '@/kernel/addresses';
import type { Env, MailNotificationKind } from './env';

export { MAIL_NOTIFICATION_KINDS, type MailNotificationKind } from './env';

/** The service's settings, parsed once from the environment by `parseConfig`. */
export interface Config {
  port: number;
  host: string;
  /** Seconds a connection may stay silent before the server closes it (long polls get longer). */
  idleTimeoutSeconds: number;
  databasePath: string;
  jwtSecret: string;
  publicOrigins: string[];
  rpId: string;
  rpName: string;
  tls?: { certPath: string; keyPath: string };
  trustProxy: boolean;
  /** With TRUST_PROXY: the proxies whose X-Forwarded-For entries are believed. */
  trustedProxies: readonly AddressRange[];
  /** Leading bits of an IPv6 client address a per-address limit counts it by (RATE_LIMIT_IPV6_PREFIX). */
  ipv6LimitPrefix: number;
  rateLimits: {
    enabled: boolean;
    anonymous: number;
    customer: number;
    employee: number;
    /** Writes per sliding minute outside /api/v1, per caller; the employee's never below `employee`. */
    writes: { customer: number; employee: number };
  };
  workers: boolean;
  /** Cron patterns (UTC) of the worker jobs. */
  jobSchedules: {
    planWindowReset: string;
    unitCounterReconcile: string;
    staticPageCacheWarm: string;
    eventsPrune: string;
    webhookDelivery: string;
    databaseBackup: string;
    auditRetention: string;
    mailDelivery: string;
  };
  /**
   * Days the change feed keeps an event; the long polls (`wait`) one process
   * holds open at once, per caller and in all.
   */
  events: { retentionDays: number; longPollsPerCaller: number; longPollsTotal: number };
  /**
   * Whether webhook URLs may be plain http, and may reach loopback or private
   * addresses; how many attempts one process has in flight at once.
   */
  webhooks: { allowHttp: boolean; allowPrivate: boolean; concurrency: number };
  /** What webhooks may make the service store: endpoints per customer, deliveries per endpoint and per customer. */
  webhookQuotas: {
    endpointsPerCustomer: number;
    pendingDeliveriesPerEndpoint: number;
    pendingDeliveriesPerOwner: number;
    finishedDeliveriesKeptPerEndpoint: number;
  };
  /** Days the security and audit log keeps an event. */
  auditRetentionDays: number;
  /** Rows of one account action per account (or client address) an hour before the rest are counted into one. */
  auditRowsPerCallerPerHour: number;
  /** Provider names by AAGUID (lower case) over the vendored list (PASSKEY_PROVIDERS_FILE). */
  passkeyProviders: Readonly<Record<string, string>>;
  /**
   * Where the database-backup job writes (default `backups/` beside the
   * database) and how many it keeps; `replicaDir`: where it copies each one
   * too (BACKUP_TO_REPLICA: `backups/` in a file:// replica's folder).
   */
  backups: { dir: string; keep: number; replicaDir?: string };
  /** Free bytes below which a watched file system counts as low (DISK_FREE_THRESHOLD_MB). */
  diskFreeThresholdBytes: number;
  logLevel: Env['LOG_LEVEL'];
  /** `pretty`: one coloured human-readable line per request (a terminal); `json`: one object per line. */
  logFormat: NonNullable<Env['LOG_FORMAT']>;
  /** What runs an operator command here, as printed hints write it: `npm run`, or `bun run` in the image. */
  commandPrefix: string;
  corsOrigins: string[];
  /** In-process cache of the static-page reads; off for benchmarks. */
  staticPagesCache: boolean;
  /** In-process cache of property, list, transaction and page reads, dropped by what a write changes; off for benchmarks. */
  readCache: boolean;
  /** Most characters the read cache holds, all answers together (a share of MEMORY_BUDGET_MB). */
  readCacheChars: number;
  /** SQLite's page cache of the serving connection in KiB (the other share of MEMORY_BUDGET_MB). */
  sqlitePageCacheKib: number;
  /** Connections of this process's PostgreSQL pool (with DATABASE_URL). */
  postgresPoolSize: number;
  /** `GET /metrics` and the per-request figures behind it; off to measure what they cost. */
  metrics: boolean;
  /** Storage quotas of customers (employees are exempt). */
  quotas: { propertiesPerOwner: number; unitsPerProperty: number };
  /** Live Idempotency-Key records kept per caller. */
  idempotencyKeysPerCaller: number;
  /** Sign-up policy and the per-IP bounds of the account routes. */
  accounts: {
    signUp: 'open' | 'verify' | 'closed';
    signUpsPerIpPerHour: number;
    passkeyOptionsPerIpPerMinute: number;
    /** Requests that hash a password, per account (from one address when not signed in) and per address. */
    passwordHashesPerAccountPerMinute: number;
    passwordHashesPerIpPerMinute: number;
    /** Password reset requests an hour, per client address and per typed email. */
    passwordResetsPerIpPerHour: number;
    passwordResetsPerAccountPerHour: number;
    emailLinksPerAccountPerHour: number;
    /** Live browser sessions kept per account; the oldest ends when a new one starts past it. */
    sessionsPerAccount: number;
  };
  /** Password hashes and verifications at once (argon2id), and how many may wait. */
  hashing: { concurrency: number; queue: number };
  /** A bearer token that may read GET /metrics (besides employees), for a scraper. */
  metricsToken?: string;
  /** The shared Redis of several instances (REDIS_URL); absent: all state stays in this process. */
  redis?: RedisSettings;
  /** Continuous replication of the SQLite file by Litestream (REPLICA_URL); absent: off. */
  replica?: ReplicaSettings;
  mail: MailSettings;
}

/** Outgoing mail: who it is from, and the SMTP server (SMTP_HOST); without one, messages go to the log. */
export interface MailSettings {
  /** The From header (MAIL_FROM). */
  from: string;
  smtp?: SmtpSettings;
  /** The notifications sent (MAIL_NOTIFICATIONS); the others are not queued at all. */
  notifications: readonly MailNotificationKind[];
}

export interface SmtpSettings {
  host: string;
  port: number;
  /** `implicit`: TLS from the first byte; `starttls`: plain, then upgraded (refused if the server cannot); `none`: plain. */
  tls: 'implicit' | 'starttls' | 'none';
  auth?: { user: string; password: string };
  /** PEM certificates (SMTP_TLS_CA_FILE) trusted for the server instead of the system's. */
  tlsCa?: string;
}

export interface RedisSettings {
  url: string;
  /** Starts every key the service writes. */
  prefix: string;
  /** PEM certificates (REDIS_TLS_CA_FILE) trusted for a rediss:// server instead of the system's. */
  tlsCa?: string;
}

/** Where and how Litestream replicates the SQLite file (the REPLICA_* variables). */
export interface ReplicaSettings {
  /** `file:///path`, `sftp://user@host[:port]/path` or `s3://bucket/path`. */
  url: string;
  /** How often Litestream ships new WAL frames to the replica, a Go duration ("1s"). */
  syncInterval: string;
  /** How long the replica keeps snapshots and WAL, a Go duration ("72h"). */
  retention: string;
  /** The API of an S3-compatible store, for an s3:// replica. */
  s3Endpoint?: string;
  /** The private key for an sftp:// replica. */
  sftpKeyPath?: string;
  /** The port of Litestream's metrics on 127.0.0.1 (its `addr`). */
  metricsPort: number;
  /** Milliseconds without a sync, while writes wait, before replication counts as degraded. */
  maxLagMs: number;
}
