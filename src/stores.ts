import type { SQL } from 'bun';
import { postgresAccountStore } from '@/accounts/postgres-store';
import { sqliteAccountStore } from '@/accounts/sqlite-store';
import type { AccountStore } from '@/accounts/store';
import { type AuditLimits, DEFAULT_AUDIT_LIMITS } from '@/audit/operations';
import { postgresAuditLog } from '@/audit/postgres-store';
import { sqliteAuditLog } from '@/audit/sqlite-store';
import type { AuditLogStore } from '@/audit/store';
import { postgresContentStore } from '@/content/postgres-store';
import { sqliteContentStore } from '@/content/sqlite-store';
import type { ContentStore } from '@/content/store';
import { postgresCustomerStore } from '@/customer/postgres-store';
import { sqliteCustomerStore } from '@/customer/sqlite-store';
import type { CustomerStore } from '@/customer/store';
import type { DatabaseHealth } from '@/db/health';
import { postgresHealth } from '@/db/pg/health';
import type { ReadCache } from '@/db/read-cache';
import type { Db } from '@/db/sqlite/client';
import { sqliteHealth } from '@/db/sqlite/health';
import { postgresEventStore } from '@/events/postgres-store';
import { sqliteEventStore } from '@/events/sqlite-store';
import type { EventStore } from '@/events/store';
import { postgresIdempotencyStore } from '@/idempotency/postgres-store';
import { sqliteIdempotencyStore } from '@/idempotency/sqlite-store';
import type { IdempotencyStore } from '@/idempotency/store';
import { postgresListingsStore } from '@/listings/postgres-store';
import { sqliteListingsStore } from '@/listings/sqlite-store';
import type { ListingsStore } from '@/listings/store';
import { postgresMailOutbox } from '@/mail/postgres-store';
import { sqliteMailOutbox } from '@/mail/sqlite-store';
import type { MailOutboxStore } from '@/mail/store';
import { postgresUsageStore } from '@/usage/postgres-store';
import { sqliteUsageStore } from '@/usage/sqlite-store';
import type { UsageStore } from '@/usage/store';
import { postgresWebhookStore } from '@/webhooks/postgres-store';
import { sqliteWebhookStore } from '@/webhooks/sqlite-store';
import type { WebhookStore } from '@/webhooks/store';
import { postgresJobRuns } from '@/workers/postgres-job-runs';
import { sqliteJobRuns } from '@/workers/sqlite-job-runs';
import type { JobRunStore } from '@/workers/store';

/** Every store of the service, on one database. */
export interface Stores {
  customer: CustomerStore;
  accounts: AccountStore;
  content: ContentStore;
  idempotency: IdempotencyStore;
  health: DatabaseHealth;
  events: EventStore;
  audit: AuditLogStore;
  webhooks: WebhookStore;
  jobRuns: JobRunStore;
  listings: ListingsStore;
  usage: UsageStore;
  mail: MailOutboxStore;
}

/**
 * The stores on SQLite: the default, and the only ones whose reads
 * `readCache` remembers. `audit` bounds the rows callers' actions write.
 */
export const sqliteStores = (
  db: Db,
  readCache: ReadCache,
  audit: AuditLimits = DEFAULT_AUDIT_LIMITS,
): Stores => ({
  customer: sqliteCustomerStore(db),
  accounts: sqliteAccountStore(db, audit),
  content: sqliteContentStore(db),
  idempotency: sqliteIdempotencyStore(db),
  health: sqliteHealth(db),
  events: sqliteEventStore(db),
  audit: sqliteAuditLog(db),
  webhooks: sqliteWebhookStore(db),
  jobRuns: sqliteJobRuns(db),
  listings: sqliteListingsStore(db, readCache),
  usage: sqliteUsageStore(db),
  mail: sqliteMailOutbox(db),
});

/** The stores on PostgreSQL, all on one pool. */
export const postgresStores = (client: SQL, audit: AuditLimits = DEFAULT_AUDIT_LIMITS): Stores => ({
  customer: postgresCustomerStore(client),
  accounts: postgresAccountStore(client, audit),
  content: postgresContentStore(client),
  idempotency: postgresIdempotencyStore(client),
  health: postgresHealth(client),
  events: postgresEventStore(client),
  audit: postgresAuditLog(client),
  webhooks: postgresWebhookStore(client),
  jobRuns: postgresJobRuns(client),
  listings: postgresListingsStore(client),
  usage: postgresUsageStore(client),
  mail: postgresMailOutbox(client),
});
