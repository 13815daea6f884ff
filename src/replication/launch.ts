import { existsSync, mkdirSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { ReplicaSettings } from '@/config';
import { writeLitestreamConfig } from './config-file';

/** The argument that tells the server it already runs under Litestream. */
export const UNDER_LITESTREAM = '--under-litestream';

/** The one line printed where Litestream is needed and missing. */
export const LITESTREAM_MISSING =
  'REPLICA_URL is set, but the litestream binary is not installed: run `npm install` (it comes with @flydotio/litestream for Linux and macOS), or put litestream (v0.3) on PATH';

/**
 * Added to a failed restore's line for an sftp:// replica: Litestream 0.3.13
 * writes files there in place, so a crash during an upload leaves the newest
 * WAL segment cut short, and every later restore fails on it.
 */
export const SFTP_RESTORE_HINT =
  "; after a crash during an upload the newest file in the replica's generations/<generation>/wal/ may be cut short: delete it and start again (docs/operations.md, Replication with Litestream)";

/** What a failed restore's line adds for `replica`: SFTP_RESTORE_HINT for an sftp:// one, else nothing. */
export const restoreHintFor = (replica: ReplicaSettings) =>
  new URL(replica.url).protocol === 'sftp:' ? SFTP_RESTORE_HINT : '';

/**
 * The litestream binary: the one the npm package ships for this platform
 * (@flydotio/litestream-<platform>-<arch>), else one on PATH. The package's
 * own `litestream` bin is a Node wrapper that neither forwards signals nor
 * answers the exit code, so the binary is run directly.
 */
export function findLitestream(
  projectRoot = join(import.meta.dir, '..', '..'),
): string | undefined {
  const packaged = join(
    projectRoot,
    'node_modules',
    '@flydotio',
    `litestream-${process.platform}-${process.arch}`,
    'litestream',
  );
  if (existsSync(packaged)) return packaged;
  return Bun.which('litestream') ?? undefined;
}

/** An argument as Litestream's `-exec` splits its string (shell words): quoted when it must be. */
const shellWord = (arg: string) =>
  /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;

/**
 * This very server again, as a command line for Litestream to start: the
 * runtime with its flags (`--smol`), the entry file (none in the single
 * binary), the arguments, and the marker.
 */
export function serverCommand(): string[] {
  const compiled = Bun.main.startsWith('/$bunfs/');
  return [
    process.execPath,
    ...(compiled ? [] : [...process.execArgv, Bun.main]),
    ...process.argv.slice(2),
    UNDER_LITESTREAM,
  ];
}

/** Runs `args` with the terminal's streams; answers its exit code (128 + n for a signal). */
async function run(args: string[], forwardSignals: boolean): Promise<number> {
  const child = Bun.spawn(args, { stdio: ['inherit', 'inherit', 'inherit'] });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const handlers = forwardSignals
    ? // Not SIGHUP: Litestream 0.3.13 would die of it and leave the server running alone.
      (['SIGTERM', 'SIGINT'] as const).map((signal) => {
        const handler = forward(signal);
        process.on(signal, handler);
        return [signal, handler] as const;
      })
    : [];
  const code = await child.exited;
  for (const [signal, handler] of handlers) process.off(signal, handler);
  const signal = child.signalCode;
  if (signal === null) return code;
  return 128 + (typeof signal === 'number' ? signal : constants.signals[signal]);
}

/**
 * Starts the server under Litestream and answers the exit code to end with:
 * writes litestream.yml beside the database; when the database file is
 * missing, restores it from the replica if the replica has one (a new host
 * after a lost disk); then `litestream replicate -exec <server>`, so
 * Litestream streams the WAL while the server runs, passes SIGTERM/SIGINT on
 * to it and syncs a last time once it has stopped. Signals this process gets
 * go to Litestream.
 */
export async function runUnderLitestream(
  databasePath: string,
  replica: ReplicaSettings,
  { command = serverCommand(), findBinary = findLitestream } = {},
): Promise<number> {
  const litestream = findBinary();
  if (!litestream) {
    console.error(LITESTREAM_MISSING);
    return 1;
  }
  const db = resolve(databasePath);
  mkdirSync(dirname(db), { recursive: true });
  const config = writeLitestreamConfig(db, replica);
  // -no-expand-env: a `$` in a path stays a `$`.
  const flags = ['-config', config, '-no-expand-env'];
  if (!existsSync(db)) {
    const restore = [
      litestream,
      'restore',
      ...flags,
      '-if-db-not-exists',
      '-if-replica-exists',
      db,
    ];
    const code = await run(restore, false);
    if (code !== 0) {
      console.error(
        `litestream restore from ${replica.url} failed (exit code ${code}); nothing was started${restoreHintFor(replica)}`,
      );
      return 1;
    }
  }
  return run([litestream, 'replicate', ...flags, '-exec', command.map(shellWord).join(' ')], true);
}
