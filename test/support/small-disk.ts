import { describe, test } from 'bun:test';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onPostgres } from './postgres-mode';

const run = (...command: string[]) => {
  const result = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`${command.join(' ')}: ${result.stderr.trim() || result.status}`);
};

/**
 * Whether this process may mount a file system (root, and `mount` lets it):
 * the disk tests run on a real small tmpfs, never on a stubbed reading.
 */
export const canMount = (() => {
  if (process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), 'listings-mount-probe-'));
  try {
    run('mount', '-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe);
    run('umount', probe);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

const NO_MOUNT = 'needs root to mount a small file system (run as root, as CI does)';

/**
 * A describe whose tests mount a small file system (root only), about the
 * SQLite file's disk unless `postgres` says it runs under TEST_DATABASE=postgres
 * too; elsewhere one skipped test that says why (its body never runs: it
 * would mount at once).
 */
export function describeOnSmallDisk(title: string, body: () => void, { postgres = false } = {}) {
  const why = !canMount
    ? NO_MOUNT
    : onPostgres && !postgres
      ? "the SQLite file's disk (TEST_DATABASE=postgres)"
      : undefined;
  if (why === undefined) describe(title, body);
  else describe(title, () => test.skip(`skipped: ${why}`, () => {}));
}

/**
 * A tmpfs of `sizeMiB` mounted on a new temp folder, and what a test does to
 * it: fill it up to `leaveBytes` free with a file, free that file again,
 * unmount it at the end.
 */
export function smallDisk(sizeMiB: number) {
  const dir = mkdtempSync(join(tmpdir(), 'listings-small-disk-'));
  run('mount', '-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir);
  const filler = join(dir, 'filler.bin');
  const freeBytes = () => {
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize;
  };
  return {
    dir,
    freeBytes,
    /**
     * Writes a file that leaves about `leaveBytes` free. The server may take
     * some of the space between the look and the write (a checkpoint copying
     * pages into the file): the write then stops at a full disk, which is
     * where a fill to 0 was going anyway.
     */
    fill(leaveBytes: number) {
      rmSync(filler, { force: true });
      try {
        writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes() - leaveBytes), 1));
      } catch (error) {
        if (leaveBytes > 0 || (error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    },
    /** Deletes the filling file. */
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
