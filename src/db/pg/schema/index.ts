import * as declarations from '../../schema';
import { pgTablesOf } from './table';

/**
 * The PostgreSQL tables, each mapped from its one declaration in src/db/schema/
 * (what the drizzle config and the PostgreSQL stores read; docs/postgresql.md
 * gives the type mapping).
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
} = pgTablesOf(declarations);
