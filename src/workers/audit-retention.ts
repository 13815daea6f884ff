import type { AppDeps } from '@/deps';
import { whenReady } from '@/rate-limit/store';
import type { JobDetails } from './scheduler';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes the security and audit log's events older than AUDIT_RETENTION_DAYS. */
export function run(deps: AppDeps) {
  const before = deps.clock() - deps.config.auditRetentionDays * DAY_MS;
  return whenReady(
    deps.audit.pruneAudit(before),
    (deleted): JobDetails => ({ deleted, before: new Date(before).toISOString() }),
  );
}
