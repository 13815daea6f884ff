import * as declarations from '../../schema';
import { sqliteTablesOf } from './table';

export type { AuditAction } from '../../schema/audit-events';

/**
 * The SQLite tables, each mapped from its one declaration in src/db/schema/
 * (what the drizzle config and the SQLite stores read).
 */
export const {
  auditEvents,
  auditQuotas,
  authFailures,
  emailLinks,
  employeeLimits,
  events,
  idempotencyKeys,
  jobRuns,
  mailOutbox,
  neighbourhoods,
  passkeys,
  passwordResets,
  planAssignments,
  plans,
  properties,
  propertyAdditionalData,
  propertyCounts,
  propertySortChanges,
  sessions,
  staticPages,
  tokenCutoffs,
  transactions,
  unitFeatures,
  units,
  usageBuckets,
  users,
  webauthnChallenges,
  webhookDeliveries,
  webhookEndpoints,
  windowUsage,
} = sqliteTablesOf(declarations);

export type AuditEventRow = typeof auditEvents.$inferSelect;
export type EmailLink = typeof emailLinks.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type JobRunRow = typeof jobRuns.$inferSelect;
export type MailOutboxRow = typeof mailOutbox.$inferSelect;
export type NeighbourhoodRow = typeof neighbourhoods.$inferSelect;
export type Passkey = typeof passkeys.$inferSelect;
export type PasswordReset = typeof passwordResets.$inferSelect;
export type PlanRow = typeof plans.$inferSelect;
export type PropertyRow = typeof properties.$inferSelect;
export type Session = typeof sessions.$inferSelect;
export type StaticPageRow = typeof staticPages.$inferSelect;
export type TokenCutoffRow = typeof tokenCutoffs.$inferSelect;
export type TransactionRow = typeof transactions.$inferSelect;
export type UnitFeatureRow = typeof unitFeatures.$inferSelect;
export type UnitRow = typeof units.$inferSelect;
export type UsageBucketRow = typeof usageBuckets.$inferSelect;
export type User = typeof users.$inferSelect;
export type WebauthnChallenge = typeof webauthnChallenges.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
