import { pruneAudit } from '@/audit/log';
import type { AppDeps } from '@/deps';
import type { JobDetails } from './scheduler';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes the security and audit log's events older than AUDIT_RETENTION_DAYS. */
export function run(deps: AppDeps): JobDetails {
  const before = deps.clock() - deps.config.auditRetentionDays * DAY_MS;
  return { deleted: pruneAudit(deps.db, before), before: new Date(before).toISOString() };
}
