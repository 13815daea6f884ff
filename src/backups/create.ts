import type { Database } from 'bun:sqlite';
import { randomBytes } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  linkSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ensureBackupDir } from './folder';
import { type BackupLabel, backupName } from './names';
import { BackupError, checkSnapshot, syncFile } from './snapshot';

export interface BackupOptions {
  /** The folder of the backups (BACKUP_DIR). */
  dir: string;
  /** The instant written into the name. */
  now: number;
  label?: BackupLabel;
  /** Write here instead of a new name in `dir` (`npm run backup -- --out FILE`); never replaces a file. */
  out?: string;
}

export interface BackupResult {
  name: string;
  path: string;
  /** Bytes of the compressed file. */
  size: number;
  /** Bytes of the snapshot before compression. */
  databaseSize: number;
  durationMs: number;
}

const unlinkQuietly = (path: string) => {
  try {
    unlinkSync(path);
  } catch {}
};

/** Runs `work` with new files created owner-only (VACUUM INTO takes the process umask). */
function ownerOnlyFiles<T>(work: () => T): T {
  const previous = process.umask(0o077);
  try {
    return work();
  } finally {
    process.umask(previous);
  }
}

/**
 * Places the finished file under its final name without ever replacing one:
 * a hard link fails when the name exists, so two backups of the same
 * millisecond (another process, a fixed test clock) take the next suffix.
 */
function publish(temp: string, options: BackupOptions): string {
  if (options.out) {
    try {
      linkSync(temp, options.out);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      throw new BackupError(`${options.out} exists already; choose another file`);
    }
    return options.out;
  }
  for (let sequence = 0; sequence < 1000; sequence++) {
    const path = join(options.dir, backupName(options.now, options.label, sequence));
    if (existsSync(path)) continue;
    try {
      linkSync(temp, path);
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new BackupError(`no free backup name in ${options.dir}`);
}

/**
 * A consistent, checked, compressed copy of the live database.
 *
 * `VACUUM INTO` reads the database in one read transaction, so the copy is
 * the state of one instant, including whatever the WAL holds, while other
 * connections keep writing (WAL readers never block writers). It runs on the
 * connection given, synchronously; compression then streams through zlib off
 * the main thread. The snapshot is checked (integrity, migrations table)
 * before it is compressed into a hidden temporary file, flushed to disk and
 * only then given its final name (0600), so a listed backup is always whole.
 */
export async function createBackup(
  client: Database,
  options: BackupOptions,
): Promise<BackupResult> {
  const started = performance.now();
  if (!options.out) ensureBackupDir(options.dir);
  const folder = options.out ? dirname(resolve(options.out)) : options.dir;
  const token = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const raw = join(folder, `.backup-${token}.snapshot`);
  const compressed = join(folder, `.backup-${token}.gz.tmp`);
  try {
    ownerOnlyFiles(() => client.run('VACUUM INTO ?', [raw]));
    checkSnapshot(raw, 'the snapshot');
    const databaseSize = statSync(raw).size;
    await pipeline(
      createReadStream(raw),
      createGzip({ level: 6 }),
      createWriteStream(compressed, { mode: 0o600, flags: 'wx' }),
    );
    syncFile(compressed);
    const path = publish(compressed, options);
    return {
      name: basename(path),
      path,
      size: statSync(path).size,
      databaseSize,
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    unlinkQuietly(raw);
    unlinkQuietly(compressed);
  }
}
