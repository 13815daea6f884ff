import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type BackupName, newestFirst, parseBackupName } from './names';

export interface BackupEntry extends BackupName {
  path: string;
  /** Bytes on disk (compressed). */
  size: number;
}

/** The backup folder, created owner-only (0700) when missing. */
export function ensureBackupDir(dir: string): void {
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** The backups in `dir` (only names matching BACKUP_NAME), newest first; none when it is missing. */
export function listBackups(dir: string): BackupEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const entries: BackupEntry[] = [];
  for (const file of names) {
    const parsed = parseBackupName(file);
    if (!parsed) continue;
    const path = join(dir, file);
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats?.isFile()) entries.push({ ...parsed, path, size: stats.size });
  }
  return entries.sort(newestFirst);
}

/** One backup by name, or undefined when the name is not a backup name or no such file exists. */
export function findBackup(dir: string, name: string): BackupEntry | undefined {
  if (!parseBackupName(name)) return undefined;
  return listBackups(dir).find((entry) => entry.name === name);
}

/** Deletes the backups beyond the newest `keep`; answers the names deleted. */
export function pruneBackups(dir: string, keep: number): string[] {
  const pruned: string[] = [];
  for (const entry of listBackups(dir).slice(keep)) {
    try {
      unlinkSync(entry.path);
      pruned.push(entry.name);
    } catch {
      // Gone already (another process pruned it): nothing to do.
    }
  }
  return pruned;
}
