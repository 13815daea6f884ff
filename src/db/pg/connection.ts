import { SQL } from 'bun';

/** Seconds a request refused for want of PostgreSQL suggests waiting. */
export const POSTGRES_RETRY_AFTER_SECONDS = 5;

/** How long opening a connection may take before PostgreSQL counts as down. */
const CONNECT_TIMEOUT_SECONDS = 5;
/**
 * Server-side bounds on one statement and on a transaction left idle: a
 * request never holds a connection (and its locks) for longer, whatever
 * went wrong on this side.
 */
const STATEMENT_TIMEOUT_MS = 15_000;
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 15_000;

export interface PostgresOptions {
  /** Connections in this process's pool (Bun's default: 10). */
  max?: number;
  /** Seconds an unused connection stays open (tests with many pools close theirs sooner). */
  idleTimeout?: number;
}

/**
 * The pool of one instance. Bun's client opens connections as they are
 * needed and again after PostgreSQL comes back, so the service recovers
 * from an outage without a restart; while it is down every query fails at
 * once (a refused connection) or after the connect timeout.
 */
export function openPostgres(
  url: string,
  { max = 10, idleTimeout = 30 }: PostgresOptions = {},
): SQL {
  return new SQL(url, {
    max,
    connectionTimeout: CONNECT_TIMEOUT_SECONDS,
    idleTimeout,
    connection: {
      application_name: 'listings-service',
      statement_timeout: STATEMENT_TIMEOUT_MS,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
  });
}

/** The `code` of a driver's error (`ERR_POSTGRES_SERVER_ERROR`, `SQLITE_FULL`), or ''. */
export const codeOf = (error: unknown) =>
  error instanceof Error && 'code' in error ? String(error.code) : '';
/** The SQLSTATE of a PostgreSQL server error (Bun puts it in `errno`), or ''. */
export const sqlStateOf = (error: unknown) =>
  error instanceof Error && 'errno' in error ? String(error.errno) : '';

/**
 * SQLSTATEs that say the server cannot serve now rather than that the
 * statement is wrong: connection exceptions (08…), too many connections,
 * a server shutting down or starting up, statement/idle timeouts hit while
 * the server was stalled.
 */
const UNAVAILABLE_STATES = /^(08|53300|57P0[1-4]|57014)/;

/**
 * Whether `error` means PostgreSQL could not be reached or stopped
 * answering (Bun's `ERR_POSTGRES_CONNECTION_*`, timeouts), as opposed to
 * a statement it refused: the request is answered 503 with Retry-After,
 * and the transaction it ran in, if any, was rolled back or never began.
 */
export const isPostgresUnavailable = (error: unknown): boolean =>
  someCause(error, isUnavailableCode);

/** `error` or one of its causes: drizzle wraps the driver's error (DrizzleQueryError). */
export function someCause(error: unknown, test: (error: Error) => boolean): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 4; depth++) {
    if (test(cause)) return true;
    cause = cause.cause;
  }
  return false;
}

function isUnavailableCode(error: Error): boolean {
  const code = codeOf(error);
  if (
    code.startsWith('ERR_POSTGRES_CONNECTION') ||
    code === 'ERR_POSTGRES_IDLE_TIMEOUT' ||
    code === 'ERR_POSTGRES_LIFETIME_TIMEOUT' ||
    code === 'ERR_POSTGRES_TLS_NOT_AVAILABLE'
  ) {
    return true;
  }
  return code === 'ERR_POSTGRES_SERVER_ERROR' && UNAVAILABLE_STATES.test(sqlStateOf(error));
}

const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

/** `host:port/database` of a URL, never its user or password. */
export function whereOf(url: string): string {
  const { host, pathname } = new URL(url);
  return `${host}${pathname}`;
}

/**
 * Connects and sends `SELECT 1`: undefined, or one line saying why not
 * (`cannot connect to 127.0.0.1:5499/app: Failed to connect`), for the
 * start-up check. The password is never part of it.
 */
export async function postgresProblem(url: string): Promise<string | undefined> {
  const client = new SQL(url, { max: 1, connectionTimeout: CONNECT_TIMEOUT_SECONDS });
  try {
    await client`SELECT 1`;
    return undefined;
  } catch (error) {
    return `cannot connect to ${whereOf(url)}: ${firstLine(error)}`;
  } finally {
    await client.close({ timeout: 0 });
  }
}

/**
 * Whether PostgreSQL refused a text value it cannot hold: NUL (`\u0000`),
 * which SQLite stores. The request is answered as malformed (400): the
 * value cannot be stored, whatever the rules say of it.
 */
export const isUnstorableText = (error: unknown): boolean =>
  someCause(
    error,
    (cause) => codeOf(cause) === 'ERR_POSTGRES_SERVER_ERROR' && sqlStateOf(cause) === '22021',
  );

/** Whether PostgreSQL refused a row for a unique index (unique_violation, 23505). */
export const isUniqueViolation = (error: unknown): boolean =>
  someCause(
    error,
    (cause) => codeOf(cause) === 'ERR_POSTGRES_SERVER_ERROR' && sqlStateOf(cause) === '23505',
  );
