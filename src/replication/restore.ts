import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ReplicaSettings } from '@/config';
import { writeLitestreamConfig } from './config-file';
import { findLitestream, LITESTREAM_MISSING, restoreHintFor } from './launch';

export type ReplicaCopy = { path: string } | { problem: string };

/**
 * Copies the replica's state (the latest, or the one at `timestamp`, an
 * RFC 3339 instant within retention) into a new file beside the database,
 * which stays untouched: the caller checks the copy and puts it in place.
 */
export async function copyFromReplica(
  databasePath: string,
  replica: ReplicaSettings,
  {
    timestamp,
    findBinary = findLitestream,
  }: { timestamp?: string; findBinary?: () => string | undefined } = {},
): Promise<ReplicaCopy> {
  const litestream = findBinary();
  if (!litestream) return { problem: LITESTREAM_MISSING };
  const db = resolve(databasePath);
  mkdirSync(dirname(db), { recursive: true });
  const config = writeLitestreamConfig(db, replica);
  const path = join(dirname(db), `.from-replica-${process.pid}-${Date.now()}.db`);
  const proc = Bun.spawn(
    [
      litestream,
      'restore',
      '-config',
      config,
      '-no-expand-env',
      '-o',
      path,
      ...(timestamp ? ['-timestamp', timestamp] : []),
      db,
    ],
    { stdout: 'pipe', stderr: 'pipe' },
  );
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  // Litestream builds the file as <path>.tmp and leaves that one's -wal and -shm behind.
  for (const leftover of [`${path}.tmp-wal`, `${path}.tmp-shm`]) rmSync(leftover, { force: true });
  if (code === 0 && existsSync(path)) return { path };
  rmSync(path, { force: true });
  // Its last line, e.g. `… level=ERROR msg="failed to run" error="no matching backups found"`.
  const said = `${out}\n${err}`.trim().split('\n').at(-1) ?? '';
  const reason = /error="([^"]*)"/.exec(said)?.[1] ?? said;
  return {
    problem: `litestream restore from ${replica.url} failed${reason ? `: ${reason}` : ''}${restoreHintFor(replica)}`,
  };
}

/**
 * Litestream's own bookkeeping beside the database (`.<name>-litestream`):
 * after the file was replaced it describes another file, so it goes, and
 * the next start replicates the restored file as a new generation.
 */
export function forgetReplicationState(databasePath: string): void {
  const db = resolve(databasePath);
  rmSync(join(dirname(db), `.${basename(db)}-litestream`), { recursive: true, force: true });
}
