/**
 * Backup file names. The service only lists, serves and prunes files whose
 * name matches BACKUP_NAME exactly, so nothing else an operator keeps in the
 * folder is ever touched, and a name from a URL can never leave the folder.
 *
 *   backup-20261122T030000123Z.db.gz               a scheduled or manual backup
 *   backup-20261122T030000123Z-pre-upgrade.db.gz   taken before pending migrations
 *   backup-20261122T030000123Z-2.db.gz             a second one in the same millisecond
 */
export const BACKUP_NAME = /^backup-(\d{8}T\d{9}Z)(-pre-upgrade)?(?:-([1-9]\d{0,2}))?\.db\.gz$/;

/** What a backup name says. */
export interface BackupName {
  name: string;
  /** The instant in the name (UTC, millisecond precision). */
  createdAt: Date;
  preUpgrade: boolean;
  /** 0, or the suffix that set it apart from another of the same millisecond. */
  sequence: number;
}

export type BackupLabel = 'pre-upgrade';

/** `20261122T030000123Z` for 2026-11-22T03:00:00.123Z. */
export function stampOf(at: number): string {
  return new Date(at).toISOString().replace(/[-:.]/g, '');
}

export function backupName(at: number, label?: BackupLabel, sequence = 0): string {
  const tag = label ? `-${label}` : '';
  const suffix = sequence > 0 ? `-${sequence}` : '';
  return `backup-${stampOf(at)}${tag}${suffix}.db.gz`;
}

/** The parts of a backup name, or undefined for any other name. */
export function parseBackupName(name: string): BackupName | undefined {
  const match = BACKUP_NAME.exec(name);
  if (!match) return undefined;
  const s = match[1]!;
  const iso = `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}.${s.slice(15, 18)}Z`;
  const createdAt = new Date(iso);
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== iso) return undefined;
  return { name, createdAt, preUpgrade: match[2] !== undefined, sequence: Number(match[3] ?? 0) };
}

/** Newest first: by the instant in the name, then by the same-millisecond suffix. */
export const newestFirst = (a: BackupName, b: BackupName) =>
  b.createdAt.getTime() - a.createdAt.getTime() || b.sequence - a.sequence;
