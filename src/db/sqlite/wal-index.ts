import type { Database } from 'bun:sqlite';
import { closeSync, ftruncateSync, openSync, statSync } from 'node:fs';

/** A new -shm file's size: one wal-index region, as SQLite makes it. */
const REGION_BYTES = 32 * 1024;

interface Mapped {
  inode: number;
  header: Int32Array;
}

/** Where the header's frame count (mxFrame) is, in 32-bit words: the last frame committed to the WAL. */
export const WAL_FRAMES = 4;

/** The -shm files this process has mapped, by path. */
const mappedByPath = new Map<string, Mapped>();
/** The header each connection's feed reads (`ChangeFeed`). */
const headerOf = new WeakMap<Database, Int32Array>();

/**
 * Maps the first 48 bytes of `path`'s -shm file (the wal-index header SQLite
 * rewrites at every commit, by any process) so that a change can be noticed
 * without a system call. Call it before SQLite opens the database: mapping
 * opens and closes a descriptor of the file, and closing any descriptor of a
 * file drops every POSIX lock the process holds on it, SQLite's included.
 * Without its lock on the -shm file, the next process to open the database
 * takes itself for the only one and rebuilds the wal-index under the
 * server's feet (a server crashed with SIGBUS in the benchmark when its
 * fixtures opened the file). A file this process has mapped already is not
 * opened again while it is the same file.
 */
export function mapWalIndex(path: string): Int32Array | undefined {
  const shm = `${path}-shm`;
  const known = mappedByPath.get(shm);
  const inode = inodeOf(shm);
  if (known && known.inode === inode) return known.header;
  if (inode === undefined) {
    // SQLite, the first to open it, empties and rebuilds it in place (same file).
    try {
      const fd = openSync(shm, 'wx', 0o600);
      ftruncateSync(fd, REGION_BYTES);
      closeSync(fd);
    } catch {
      return undefined;
    }
  }
  const mapped = Bun.mmap(shm, { shared: true });
  if (mapped.byteLength < 48) return undefined;
  const header = new Int32Array(mapped.buffer, mapped.byteOffset, 12);
  mappedByPath.set(shm, { inode: inodeOf(shm)!, header });
  return header;
}

/** Remembers the header mapped for `client`'s file before it was opened. */
export function useWalIndex(client: Database, header: Int32Array | undefined): void {
  if (header) headerOf.set(client, header);
}

/** The wal-index header mapped for `client`, if it was opened by `openDatabase` in WAL mode. */
export function walIndexOf(client: Database): Int32Array | undefined {
  const header = headerOf.get(client);
  if (!header) return undefined;
  const mode = client.query<{ journal_mode: string }, []>('PRAGMA journal_mode').get();
  return mode?.journal_mode === 'wal' ? header : undefined;
}

function inodeOf(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}
