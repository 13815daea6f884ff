import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, linkSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ensureBackupDir, pruneBackups } from './folder';
import { BackupError, syncFile } from './snapshot';

export interface BackupCopy {
  path: string;
  /** Names deleted beyond the newest `keep` in the copies' folder. */
  pruned: string[];
}

/**
 * Copies a finished backup into another folder (a file:// replica's
 * `backups/`) under the same name, then keeps the newest `keep` there as in
 * BACKUP_DIR. The copy is written under a hidden name, flushed, and only
 * then linked to its name, so a listed copy is whole; a copy already there
 * under that name is left as it is.
 */
export function copyBackup(path: string, dir: string, keep: number): BackupCopy {
  try {
    return copyInto(path, dir, keep);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new BackupError(`${basename(path)} was written, but not copied into ${dir}: ${reason}`);
  }
}

function copyInto(path: string, dir: string, keep: number): BackupCopy {
  ensureBackupDir(dir);
  if (!statSync(dir).isDirectory()) throw new Error('it is not a folder');
  const target = join(dir, basename(path));
  if (!existsSync(target)) {
    const temp = join(dir, `.backup-${process.pid}-${randomBytes(4).toString('hex')}.copy.tmp`);
    try {
      copyFileSync(path, temp);
      chmodSync(temp, 0o600);
      syncFile(temp);
      try {
        linkSync(temp, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    } finally {
      rmSync(temp, { force: true });
    }
  }
  return { path: target, pruned: pruneBackups(dir, keep) };
}
