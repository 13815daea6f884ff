import type { Database } from 'bun:sqlite';
import { closeSync, ftruncateSync, openSync, statSync } from 'node:fs';

/** A new -shm file's size: one wal-index region, as SQLite makes it. */
const REGION_BYTES = 32 * 1024;

export interface Mapped {
  inode: number;
  header: Int32Array;
  /** The header and the checkpoint information after it (`WAL_INDEX_WORDS` words). */
  index: Int32Array;
}

/** Where the header's frame count (mxFrame) is, in 32-bit words: the last frame committed to the WAL. */
export const WAL_FRAMES = 4;

/**
 * Where the count of WAL frames already copied into the database file
 * (nBackfill) is, in 32-bit words: after the header's two copies (2 × 48
 * bytes), the first field of the checkpoint information.
 */
export const WAL_BACKFILLED = 24;

/** Words of the -shm file's start that `walCheckpointInfoOf` shows. */
const WAL_INDEX_WORDS = WAL_BACKFILLED + 1;

/** The -shm files this process has mapped, by path. */
const mappedByPath = new Map<string, Mapped>();
/** The mapping of each connection's file (its header is what the feed reads, `ChangeFeed`). */
const mappedOf = new WeakMap<Database, Mapped>();

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
export function mapWalIndex(path: string): Mapped | undefined {
  const shm = `${path}-shm`;
  const known = mappedByPath.get(shm);
  const inode = inodeOf(shm);
  if (known && known.inode === inode) return known;
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
  if (mapped.byteLength < WAL_INDEX_WORDS * 4) return undefined;
  const index = new Int32Array(mapped.buffer, mapped.byteOffset, WAL_INDEX_WORDS);
  const entry = { inode: inodeOf(shm)!, header: index.subarray(0, 12), index };
  mappedByPath.set(shm, entry);
  return entry;
}

/** Remembers the wal-index mapped for `client`'s file before it was opened. */
export function useWalIndex(client: Database, mapped: Mapped | undefined): void {
  if (mapped) mappedOf.set(client, mapped);
}

/** The wal-index header mapped for `client`, if it was opened by `openDatabase` in WAL mode. */
export function walIndexOf(client: Database): Int32Array | undefined {
  return walMappingOf(client)?.header;
}

/**
 * The header and the checkpoint information after it (`WAL_FRAMES`,
 * `WAL_BACKFILLED`), for `client` opened by `openDatabase` in WAL mode.
 */
export function walCheckpointInfoOf(client: Database): Int32Array | undefined {
  return walMappingOf(client)?.index;
}

function walMappingOf(client: Database): Mapped | undefined {
  const mapped = mappedOf.get(client);
  if (!mapped) return undefined;
  const mode = client.query<{ journal_mode: string }, []>('PRAGMA journal_mode').get();
  return mode?.journal_mode === 'wal' ? mapped : undefined;
}

function inodeOf(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}
