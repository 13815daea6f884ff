import { type CallOptions, segment, type Transport } from './http.js';
import type {
  AdminAuditPage,
  AuditQuery,
  BackupList,
  Health,
  JobList,
  JobRunResult,
  WebhookSummary,
  WebhookSummaryQuery,
} from './types.js';

/**
 * Operator endpoints (`/admin`, employees: the worker jobs, the backups, the
 * audit log, the webhook delivery summary) and the health check (`/health`).
 */
export function operationsApi(http: Transport) {
  return {
    health: (options?: CallOptions) => http.json<Health>('GET', '/health', options),
    jobs: {
      list: (options?: CallOptions) => http.json<JobList>('GET', '/admin/jobs', options),
      /** Runs a job now and answers its run record (409 while it runs). */
      run: (name: string, options?: CallOptions) =>
        http.json<JobRunResult>('POST', `/admin/jobs/${segment(name)}/run`, options),
    },
    backups: {
      /** The backups in BACKUP_DIR, newest first. */
      list: (options?: CallOptions) => http.json<BackupList>('GET', '/admin/backups', options),
      /**
       * Takes a backup now and answers its run record (`details.name`) once
       * the file is complete; 409 while one runs, 500 when it fails.
       */
      create: (options?: CallOptions) => http.json<JobRunResult>('POST', '/admin/backups', options),
      /**
       * The backup file (gzip-compressed SQLite) as the unread `Response`:
       * stream `response.body` or `await response.arrayBuffer()`. The
       * timeout covers the whole download: pass `timeoutMs` for big files.
       */
      download: (name: string, options?: CallOptions) =>
        http.json<Response>('GET', `/admin/backups/${segment(name)}`, {
          ...options,
          headers: { accept: 'application/gzip, application/problem+json', ...options?.headers },
          raw: true,
        }),
    },
    /** The audit log, newest first, filtered by actor, subject, action and time range; with the email of each account it names. */
    audit: (query?: AuditQuery, options?: CallOptions) =>
      http.json<AdminAuditPage>('GET', '/admin/audit', { ...options, query }),
    /** Every webhook endpoint's deliveries over the last `hours` (default 24, at most 168). */
    webhookSummary: (query?: WebhookSummaryQuery, options?: CallOptions) =>
      http.json<WebhookSummary>('GET', '/admin/webhooks/summary', { ...options, query }),
  };
}
