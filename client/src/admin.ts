import { type CallOptions, segment, type Transport } from './http.js';
import type { AdminAuditPage, AuditQuery, Health, JobList, JobRunResult } from './types.js';

/** Operator endpoints (`/admin`, employees: the worker jobs, the audit log) and the health check (`/health`). */
export function operationsApi(http: Transport) {
  return {
    health: (options?: CallOptions) => http.json<Health>('GET', '/health', options),
    jobs: {
      list: (options?: CallOptions) => http.json<JobList>('GET', '/admin/jobs', options),
      /** Runs a job now and answers its run record (409 while it runs). */
      run: (name: string, options?: CallOptions) =>
        http.json<JobRunResult>('POST', `/admin/jobs/${segment(name)}/run`, options),
    },
    /** The audit log, newest first, filtered by actor, subject, action and time range; with the email of each account it names. */
    audit: (query?: AuditQuery, options?: CallOptions) =>
      http.json<AdminAuditPage>('GET', '/admin/audit', { ...options, query }),
  };
}
