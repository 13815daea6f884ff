import { timingSafeEqual } from 'node:crypto';
import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { identify } from '@/api/plugins/auth';
import { listBackups } from '@/backups';
import type { DatabaseSize } from '@/db/health';
import { fail } from '@/kernel/errors';
import type { OutboxCounts } from '@/mail/store';
import { problemResponses } from '../raw-responses';
import { CONTENT_TYPE, Exposition } from './exposition';

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** What /metrics reads from the database for each scrape. */
export interface StoredFigures {
  size: DatabaseSize | undefined;
  outbox: OutboxCounts & { oldestPendingAt: Date | null };
}

/** The service's figures in the Prometheus text format, with those read from the database. */
export function renderMetrics(deps: ApiDeps, { size, outbox }: StoredFigures): string {
  const out = new Exposition();
  deps.requests.write(out);
  out.family(
    'listings_rate_limit_refusals_total',
    'counter',
    'Requests refused with 429, by the window that refused.',
  );
  for (const [window, count] of deps.limiter.refusals)
    out.sample('listings_rate_limit_refusals_total', { window }, count);

  const cache = deps.readCache;
  out
    .family('listings_read_cache_hits_total', 'counter', 'Reads answered from the read cache.')
    .sample('listings_read_cache_hits_total', undefined, cache.hits)
    .family('listings_read_cache_misses_total', 'counter', 'Reads the read cache had to compute.')
    .sample('listings_read_cache_misses_total', undefined, cache.misses)
    .family('listings_read_cache_entries', 'gauge', 'Answers held by the read cache.')
    .sample('listings_read_cache_entries', undefined, cache.size);

  const jobs = [...(deps.jobs?.stats() ?? new Map())];
  out.family('listings_job_runs_total', 'counter', 'Worker job runs finished, by outcome.');
  for (const [job, stats] of jobs) {
    out.sample('listings_job_runs_total', { job, outcome: 'succeeded' }, stats.succeeded);
    out.sample('listings_job_runs_total', { job, outcome: 'failed' }, stats.failed);
  }
  out.family('listings_job_run_seconds_total', 'counter', 'Seconds spent in finished job runs.');
  for (const [job, stats] of jobs)
    out.sample('listings_job_run_seconds_total', { job }, stats.durationSeconds);
  out.family('listings_job_last_run_seconds', 'gauge', 'Duration of the latest run of each job.');
  for (const [job, stats] of jobs) {
    if (!Number.isNaN(stats.lastDurationSeconds)) {
      out.sample('listings_job_last_run_seconds', { job }, stats.lastDurationSeconds);
    }
  }

  const backups = listBackups(deps.config.backups.dir);
  out
    .family('listings_backups', 'gauge', 'Backup files in BACKUP_DIR.')
    .sample('listings_backups', undefined, backups.length);
  out.family('listings_backup_age_seconds', 'gauge', 'Seconds since the newest backup was taken.');
  if (backups[0]) {
    const age = (deps.clock() - backups[0].createdAt.getTime()) / 1000;
    out.sample('listings_backup_age_seconds', undefined, Math.max(0, age));
  }

  out.family(
    'listings_database_size_bytes',
    'gauge',
    'Size of the database: the SQLite file, or the PostgreSQL database.',
  );
  if (size) out.sample('listings_database_size_bytes', undefined, size.database);
  out.family(
    'listings_database_wal_size_bytes',
    'gauge',
    "Size of the SQLite write-ahead log (PostgreSQL's WAL is the whole server's: none).",
  );
  if (size?.wal !== undefined) out.sample('listings_database_wal_size_bytes', undefined, size.wal);

  const disk = deps.disk.status();
  out.family(
    'listings_disk_free_bytes',
    'gauge',
    "Free bytes of the database's, the backups' and a file:// replica's file systems.",
  );
  for (const { name, freeBytes } of disk.volumes)
    if (freeBytes !== null) out.sample('listings_disk_free_bytes', { volume: name }, freeBytes);
  out.family('listings_disk_total_bytes', 'gauge', 'Size of each watched file system.');
  for (const { name, totalBytes } of disk.volumes)
    if (totalBytes !== null) out.sample('listings_disk_total_bytes', { volume: name }, totalBytes);
  out
    .family(
      'listings_disk_free_threshold_bytes',
      'gauge',
      'DISK_FREE_THRESHOLD_MB in bytes: below it /health says degraded.',
    )
    .sample('listings_disk_free_threshold_bytes', undefined, disk.thresholdBytes)
    .family(
      'listings_disk_writes_refused',
      'gauge',
      '1 while the database refuses writes (storage full or read-only), else 0.',
    )
    .sample('listings_disk_writes_refused', undefined, disk.state === 'refusing' ? 1 : 0)
    .family(
      'listings_disk_refused_writes_total',
      'counter',
      'Writes answered 507 (storage full or read-only) since the start.',
    )
    .sample('listings_disk_refused_writes_total', undefined, disk.refusedWrites);

  const oldestPendingAge =
    outbox.oldestPendingAt === null
      ? 0
      : Math.max(0, (deps.clock() - outbox.oldestPendingAt.getTime()) / 1000);
  out
    .family(
      'listings_mail_outbox_pending',
      'gauge',
      'Messages in the mail outbox waiting to be sent.',
    )
    .sample('listings_mail_outbox_pending', undefined, outbox.pending)
    .family(
      'listings_mail_outbox_failed',
      'gauge',
      'Messages given up on, kept in the outbox for 30 days.',
    )
    .sample('listings_mail_outbox_failed', undefined, outbox.failed)
    .family(
      'listings_mail_outbox_oldest_pending_age_seconds',
      'gauge',
      'Seconds since the oldest waiting message was queued (0 when none waits).',
    )
    .sample('listings_mail_outbox_oldest_pending_age_seconds', undefined, oldestPendingAge);

  // Samples only when the server runs under Litestream (REPLICA_URL).
  const replication = deps.replication?.status();
  out.family(
    'listings_replication_last_sync_age_seconds',
    'gauge',
    'Seconds since the replica last advanced or was caught up (since the start before the first).',
  );
  if (replication) {
    out.sample(
      'listings_replication_last_sync_age_seconds',
      undefined,
      replication.lastSyncAgeSeconds,
    );
  }
  out.family(
    'listings_replication_lag_bytes',
    'gauge',
    'WAL bytes Litestream has copied aside and not yet shipped to the replica.',
  );
  if (replication?.lagBytes != null) {
    out.sample('listings_replication_lag_bytes', undefined, replication.lagBytes);
  }
  out.family(
    'listings_replication_lag_seconds',
    'gauge',
    'Age of the oldest write Litestream has copied aside and not yet shipped (0 when none waits).',
  );
  if (replication?.lagSeconds != null) {
    out.sample('listings_replication_lag_seconds', undefined, replication.lagSeconds);
  }
  out.family(
    'listings_replication_sync_errors_total',
    'counter',
    "Litestream's failed syncs of the database since it started.",
  );
  if (replication) {
    out.sample('listings_replication_sync_errors_total', undefined, replication.syncErrors);
  }
  return out.text();
}

/**
 * GET /metrics: employees, or a scraper holding METRICS_TOKEN as its bearer
 * token (compared in constant time; it is not a JWT).
 */
export const metricsRoutes = (deps: ApiDeps) =>
  new Elysia({ name: 'metrics' }).get(
    '/metrics',
    async ({ request }) => {
      const header = request.headers.get('authorization') ?? '';
      const { metricsToken } = deps.config;
      if (!(metricsToken && sameSecret(header, `Bearer ${metricsToken}`))) {
        const caller = await identify(request, { tokens: deps.tokens });
        if (!caller) throw fail('auth.unauthenticated');
        if (caller.aud !== 'employee') throw fail('auth.forbidden');
      }
      const { health, mail } = deps.stores;
      const [size, counts, oldestPendingAt] = await Promise.all([
        health.size(),
        mail.counts(),
        mail.oldestPendingAt(),
      ]);
      const figures = { size, outbox: { ...counts, oldestPendingAt } };
      return new Response(renderMetrics(deps, figures), {
        headers: { 'content-type': CONTENT_TYPE, 'cache-control': 'no-store' },
      });
    },
    {
      detail: {
        operationId: 'getMetrics',
        summary: 'Service metrics in the Prometheus text format',
        description: 'Employee bearer token, or METRICS_TOKEN as a bearer token when set.',
        tags: ['Admin'],
        security: [{ bearer: [] }],
        responses: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...problemResponses(401, 403),
        },
      },
    },
  );
