import { type SQL, sql } from 'drizzle-orm';
import type { WebhookSummary } from './schemas';

/**
 * One row of `summaryQuery`, as either driver gives it back (PostgreSQL's
 * counts and bigints may come as text, SQLite's booleans as 0/1).
 */
export type SummaryRow = {
  id: string;
  owner_id: string | null;
  url: string;
  enabled: boolean | number;
  disabled_reason: string | null;
  attempted: number | string;
  succeeded: number | string;
  p99_duration_ms: number | string | null;
  last_error: string | null;
  last_error_at: number | string | null;
};

/**
 * Every endpoint with its deliveries last attempted since `since` (epoch
 * ms): how many, how many of them succeeded, the 99th percentile of their
 * last attempt's duration (nearest rank) and the newest error among them.
 * Written once for both databases: window functions and correlated
 * subqueries mean the same on SQLite and PostgreSQL.
 */
export const summaryQuery = (since: number): SQL => sql`
  WITH recent AS (
    SELECT endpoint_id, status, duration_ms, error, last_attempt_at, id
    FROM webhook_deliveries WHERE last_attempt_at >= ${since}
  ), timed AS (
    SELECT endpoint_id, duration_ms,
      row_number() OVER (PARTITION BY endpoint_id ORDER BY duration_ms) AS position,
      count(*) OVER (PARTITION BY endpoint_id) AS total
    FROM recent WHERE duration_ms IS NOT NULL
  )
  SELECT e.id, e.owner_id, e.url, e.enabled, e.disabled_reason,
    (SELECT count(*) FROM recent r WHERE r.endpoint_id = e.id) AS attempted,
    (SELECT count(*) FROM recent r WHERE r.endpoint_id = e.id AND r.status = 'succeeded') AS succeeded,
    (SELECT min(t.duration_ms) FROM timed t
      WHERE t.endpoint_id = e.id AND t.position * 100 >= t.total * 99) AS p99_duration_ms,
    (SELECT r.error FROM recent r WHERE r.endpoint_id = e.id AND r.error IS NOT NULL
      ORDER BY r.last_attempt_at DESC, r.id DESC LIMIT 1) AS last_error,
    (SELECT r.last_attempt_at FROM recent r WHERE r.endpoint_id = e.id AND r.error IS NOT NULL
      ORDER BY r.last_attempt_at DESC, r.id DESC LIMIT 1) AS last_error_at
  FROM webhook_endpoints e ORDER BY e.id`;

const count = (value: number | string) => Number(value);

/** The answer of GET /admin/webhooks/summary from the query's rows. */
export function toSummary(rows: SummaryRow[], since: number, now: number): WebhookSummary {
  return {
    from: new Date(since).toISOString(),
    to: new Date(now).toISOString(),
    endpoints: rows.map((row) => {
      const attempted = count(row.attempted);
      const succeeded = count(row.succeeded);
      return {
        id: row.id,
        url: row.url,
        ownerId: row.owner_id,
        enabled: Boolean(row.enabled),
        disabledReason: row.disabled_reason,
        attempted,
        succeeded,
        successRate: attempted === 0 ? null : succeeded / attempted,
        p99DurationMs: row.p99_duration_ms === null ? null : Number(row.p99_duration_ms),
        lastError:
          row.last_error === null || row.last_error_at === null
            ? null
            : { error: row.last_error, at: new Date(Number(row.last_error_at)).toISOString() },
      };
    }),
  };
}
