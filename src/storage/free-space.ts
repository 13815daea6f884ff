import { accessSync, constants, existsSync, statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

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

/** Reads a volume's free space and writability now: two system calls, no file written. */
export function readVolume(volume: Volume): VolumeReading {
  const folder = existingFolderOf(volume.path);
  let writable = true;
  try {
    accessSync(folder, constants.W_OK);
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
