import { accessSync, constants, existsSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** A folder whose file system the service watches, by the role it plays. */
export interface Volume {
  name: 'database' | 'backups' | 'replica';
  path: string;
}

/** One reading of a volume's file system. */
export interface VolumeReading extends Volume {
  /** Bytes an unprivileged process may still write (statfs `bavail`); null: unreadable. */
  freeBytes: number | null;
  totalBytes: number | null;
  /** False when the file system refuses writes (mounted or turned read-only). */
  writable: boolean;
}

/** `path` or its nearest existing parent: a backup folder not yet made is on its parent's file system. */
function existingFolderOf(path: string): string {
  let folder = resolve(path);
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  return folder;
}

/**
 * Whether a file can be made in `folder`: an ext4 turned read-only by an
 * error still passes access(2), only a write says EROFS. A full disk
 * (ENOSPC) is writable, only full.
 */
function acceptsFiles(folder: string): boolean {
  const probe = join(folder, `.write-probe-${process.pid}`);
  try {
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EROFS';
  }
}

/**
 * Reads a volume's free space and writability now: two system calls; with
 * `probe`, an empty file made and deleted too (a write refused for want of
 * storage, or while one keeps being refused as read-only).
 */
export function readVolume(volume: Volume, probe = false): VolumeReading {
  const folder = existingFolderOf(volume.path);
  let writable = true;
  try {
    accessSync(folder, constants.W_OK);
    if (probe) writable = acceptsFiles(folder);
  } catch (error) {
    writable = (error as NodeJS.ErrnoException).code !== 'EROFS';
  }
  try {
    const { bavail, blocks, bsize } = statfsSync(folder);
    return { ...volume, freeBytes: bavail * bsize, totalBytes: blocks * bsize, writable };
  } catch {
    return { ...volume, freeBytes: null, totalBytes: null, writable };
  }
}
