import type { AppDeps } from '@/deps';
import { whenReady } from '@/kernel/maybe-promise';
import type { JobDetails } from './scheduler';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the security and audit log's events older than
 * AUDIT_RETENTION_DAYS, and the counters of the windows that have ended.
 */
export function run(deps: AppDeps) {
  const now = deps.clock();
  const before = now - deps.config.auditRetentionDays * DAY_MS;
  return whenReady(deps.audit.pruneAudit(before), (deleted) =>
    whenReady(
      deps.audit.pruneAuditQuotas(now),
      (countersDeleted): JobDetails => ({
        deleted,
        countersDeleted,
        before: new Date(before).toISOString(),
      }),
    ),
  );
}
