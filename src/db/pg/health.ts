import type { SQL } from 'bun';
import type { DatabaseHealth } from '@/db/health';

/** How long `/health` waits for PostgreSQL before calling it down. */
export const POSTGRES_HEALTH_TIMEOUT_MS = 1000;

/**
 * `SELECT 1` on a pooled connection, false when it fails or takes longer
 * than `timeoutMs`: a health check must answer even while the server (or
 * the way to it) hangs, when a query would wait for its connection timeout.
 */
export const postgresHealth = (
  client: SQL,
  timeoutMs = POSTGRES_HEALTH_TIMEOUT_MS,
): DatabaseHealth => ({
  name: 'postgresql',
  async isHealthy() {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const answered = client`SELECT 1 AS ok`.then(
      (rows: { ok: number }[]) => rows[0]?.ok === 1,
      () => false,
    );
    try {
      return await Promise.race([answered, late]);
    } finally {
      clearTimeout(timer);
    }
  },
  // The server's own count of the database's files; its WAL is the whole server's.
  size: () =>
    client`SELECT pg_database_size(current_database())::float8 AS bytes`.then(
      (rows: { bytes: number }[]) => ({ database: rows[0]!.bytes }),
      () => undefined,
    ),
});
