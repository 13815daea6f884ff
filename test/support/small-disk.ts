import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

export const NO_MOUNT = 'needs root to mount a small tmpfs (run as root, as CI does)';

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
    /** Writes a file that leaves about `leaveBytes` free. */
    fill(leaveBytes: number) {
      rmSync(filler, { force: true });
      writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes() - leaveBytes), 1));
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
