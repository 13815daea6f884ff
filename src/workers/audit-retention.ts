import type { AuditLogStore } from '@/audit/store';
import type { Config } from '@/config';
import type { Clock } from '@/kernel/clock';
import { whenReady } from '@/kernel/maybe-promise';
import type { JobDetails } from './job';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the security and audit log's events older than
 * AUDIT_RETENTION_DAYS, and the counters of the windows that have ended.
 */
export function run(deps: { stores: { audit: AuditLogStore }; clock: Clock; config: Config }) {
  const now = deps.clock();
  const before = now - deps.config.auditRetentionDays * DAY_MS;
  return whenReady(deps.stores.audit.pruneAudit(before), (deleted) =>
    whenReady(
      deps.stores.audit.pruneAuditQuotas(now),
      (countersDeleted): JobDetails => ({
        deleted,
        countersDeleted,
        before: new Date(before).toISOString(),
      }),
    ),
  );
}
