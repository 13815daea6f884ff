import { dirname } from 'node:path';

/**
 * The ways the server can fail to start that an operator can act on: each
 * kind has one line naming the cause and what to do. Anything else is
 * `unexpected`: its message in one line, its stack only at LOG_LEVEL=debug.
 */
export type StartupFailure =
  | { kind: 'usage'; argument: string }
  | { kind: 'configuration'; message: string }
  | { kind: 'port-in-use'; host: string; port: number }
  | { kind: 'port-not-allowed'; host: string; port: number }
  | { kind: 'not-an-address-here'; host: string; port: number }
  | { kind: 'tls-file'; variable: 'TLS_CERT_PATH' | 'TLS_KEY_PATH'; path: string; reason: string }
  | { kind: 'database-folder'; folder: string; reason: string }
  | { kind: 'database-upgrade'; message: string }
  | { kind: 'postgresql'; problem: string }
  | { kind: 'redis'; problem: string }
  | { kind: 'unexpected'; error: unknown };

/** Thrown by a start-up step; `failStartup` turns it into its line and exit code. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
  constructor(readonly failure: StartupFailure) {
    super(lineOf(failure));
  }
}

const listenOn = (host: string, port: number) => `cannot listen on ${host}:${port}`;

/** The one line a failure prints to stderr. */
export function lineOf(failure: StartupFailure): string {
  switch (failure.kind) {
    case 'usage':
      return `unknown argument ${JSON.stringify(failure.argument)}; --help lists what the server accepts`;
    case 'configuration':
      return `Invalid configuration: ${failure.message}`;
    case 'port-in-use':
      return `${listenOn(failure.host, failure.port)}: the port is in use; stop the other process or set PORT`;
    case 'port-not-allowed':
      return `${listenOn(failure.host, failure.port)}: this user may not use ports below 1024; set PORT to 1024 or above`;
    case 'not-an-address-here':
      return `${listenOn(failure.host, failure.port)}: HOST is not an address of this machine; set HOST to one (0.0.0.0: every interface, 127.0.0.1: this machine only)`;
    case 'tls-file':
      return `${failure.variable}: cannot read ${failure.path} (${failure.reason}); set it to a readable PEM file`;
    case 'database-folder':
      return `cannot write the database folder ${failure.folder} (${failure.reason}); make it writable by this user or set DATABASE_PATH`;
    case 'database-upgrade':
      return failure.message;
    case 'postgresql':
      return `DATABASE_URL: ${failure.problem}; check that PostgreSQL runs there and DATABASE_URL names it (docs/postgresql.md)`;
    case 'redis':
      // The problem says what to do when there is something to do (src/redis/handshake.ts).
      return `REDIS_URL: ${failure.problem}`;
    case 'unexpected':
      return `cannot start: ${firstLineOf(failure.error)}; LOG_LEVEL=debug prints where it failed`;
  }
}

/** 2 for a command line the server does not understand, 1 for every other failure. */
export const exitCodeOf = (failure: StartupFailure): 1 | 2 => (failure.kind === 'usage' ? 2 : 1);

function firstLineOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? '';
}

/** The `code` of a system or SQLite error (`EADDRINUSE`, `SQLITE_CANTOPEN`). */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const reasons: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOTDIR: 'a part of its path is a file',
  EEXIST: 'a part of its path is a file',
  ENOENT: 'no such file',
  ENOSPC: 'no space left on the device',
  SQLITE_CANTOPEN: 'SQLite cannot create or open a file in it',
  SQLITE_READONLY: 'SQLite may only read it',
};

/** What `Bun.serve` threw, as the failure it stands for. */
export function listenFailureOf(
  error: unknown,
  where: { host: string; port: number; tls?: { certPath: string; keyPath: string } },
): StartupFailure {
  const { host, port, tls } = where;
  const code = codeOf(error);
  const path = (error as { path?: unknown } | null)?.path;
  if (tls && typeof path === 'string' && (path === tls.certPath || path === tls.keyPath)) {
    const variable = path === tls.certPath ? 'TLS_CERT_PATH' : 'TLS_KEY_PATH';
    return { kind: 'tls-file', variable, path, reason: reasons[code ?? ''] ?? code ?? 'error' };
  }
  if (code === 'EADDRINUSE') return { kind: 'port-in-use', host, port };
  if (code === 'EACCES') return { kind: 'port-not-allowed', host, port };
  // An address of no interface here (EADDRNOTAVAIL) or no address at all (EINVAL: `not.a.host`).
  if (code === 'EADDRNOTAVAIL' || code === 'EINVAL' || code === 'ENOTFOUND') {
    return { kind: 'not-an-address-here', host, port };
  }
  return { kind: 'unexpected', error };
}

/**
 * A file-system or SQLite error met while creating the database folder,
 * its secret file or the database, as the failure it stands for; anything
 * else is unexpected.
 */
export function databaseFolderFailureOf(error: unknown, databasePath: string): StartupFailure {
  const reason = reasons[codeOf(error) ?? ''];
  return reason
    ? { kind: 'database-folder', folder: dirname(databasePath), reason }
    : { kind: 'unexpected', error };
}

/** A failure as thrown by a step: its own, or the unexpected error it is. */
export const failureOf = (error: unknown): StartupFailure =>
  error instanceof StartupError ? error.failure : { kind: 'unexpected', error };

/**
 * Runs a start-up step; whatever it throws leaves as a StartupError, `classify`
 * deciding which failure it stands for (a StartupError passes as it is).
 */
export async function step<T>(
  run: () => T | Promise<T>,
  classify: (error: unknown) => StartupFailure,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw error instanceof StartupError ? error : new StartupError(classify(error));
  }
}

/**
 * Writes the failure's one line to stderr (and, when `showStack`, an
 * unexpected error's stack below it) and exits with its code.
 */
export function failStartup(error: unknown, showStack: boolean): never {
  const failure = failureOf(error);
  console.error(lineOf(failure));
  if (showStack && failure.kind === 'unexpected' && failure.error instanceof Error) {
    console.error(failure.error.stack);
  }
  process.exit(exitCodeOf(failure));
}
