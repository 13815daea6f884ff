import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tempDir } from '../support/harness';
import { accepting, freePort } from './support';

const SSHD = '/usr/sbin/sshd';

/** Whether OpenSSH's server is installed (Debian's `openssh-server`); tests that start one skip without it. */
export const sshdInstalled = existsSync(SSHD);

/** A describe title of tests that start their own sshd, saying why when they are skipped. */
export const ownSshdTitle = (title: string) =>
  sshdInstalled ? title : `${title} (skipped: no ${SSHD}; apt-get install openssh-server)`;

/** Runs ssh-keygen to its end; throws what it printed when it fails. */
function sshKeygen(...args: string[]) {
  const run = Bun.spawnSync(['ssh-keygen', '-q', ...args], { stdout: 'pipe', stderr: 'pipe' });
  if (run.exitCode !== 0) throw new Error(`ssh-keygen ${args.join(' ')}: ${run.stderr.toString()}`);
}

/**
 * An OpenSSH server of the test's own on a free port of 127.0.0.1, serving
 * SFTP to this machine's user (the one running the test) with a key made for
 * it: a generated host key and authorized key in a temp dir, no password.
 * `user`, `port` and `keyPath` are what an sftp:// replica needs.
 */
export async function ownSftpServer() {
  const dir = tempDir('listings-sshd-');
  const port = freePort();
  // Not os.userInfo(): Bun answers "unknown" for its username here.
  const user = Bun.spawnSync(['id', '-un']).stdout.toString().trim();
  const hostKey = join(dir, 'host_key');
  const keyPath = join(dir, 'client_key');
  sshKeygen('-t', 'ed25519', '-N', '', '-f', hostKey);
  sshKeygen('-t', 'ed25519', '-N', '', '-f', keyPath);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${keyPath}.pub`));
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      // The temp dir's modes are not what sshd asks of a home directory.
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'Subsystem sftp internal-sftp',
      '',
    ].join('\n'),
  );
  // Run as root, sshd wants its privilege separation directory, which a fresh system may lack.
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const log = join(dir, 'sshd.log');
  const server = Bun.spawn([SSHD, '-D', '-f', config, '-p', String(port), '-E', log], {
    stdout: 'ignore',
    stderr: 'pipe',
  });
  const stop = async () => {
    server.kill('SIGTERM');
    await server.exited;
  };
  for (let tries = 0; tries < 100 && server.exitCode === null; tries++) {
    if (await accepting(port)) return { user, port, keyPath, log, stop };
    await Bun.sleep(50);
  }
  await stop();
  const said = existsSync(log) ? readFileSync(log, 'utf8') : '';
  throw new Error(
    `sshd did not start on port ${port}: ${said}${await new Response(server.stderr).text()}`,
  );
}

/** Whether `bytes` hold a whole LZ4 frame: every block as long as its header says, then the end mark. */
function wholeLz4Frame(bytes: Uint8Array): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 7 || view.getUint32(0, true) !== 0x184d2204) return false;
  const flags = bytes[4]!;
  const blockChecksum = flags & 0x10 ? 4 : 0;
  // Magic, FLG, BD, the content size and dictionary id when flagged, the header checksum.
  let at = 4 + 2 + (flags & 0x08 ? 8 : 0) + (flags & 0x01 ? 4 : 0) + 1;
  while (at + 4 <= bytes.length) {
    const block = view.getUint32(at, true);
    at += 4;
    if (block === 0) return at + (flags & 0x04 ? 4 : 0) === bytes.length;
    at += (block & 0x7fffffff) + blockChecksum;
  }
  return false;
}

/**
 * Litestream 0.3.13 writes each file on an SFTP server in place, not to a
 * temporary name first: killed during an upload, it leaves that WAL segment
 * cut short, and `litestream restore` then fails. Removes such segments from
 * the replica at `replicaDir` (the step docs/operations.md gives operators);
 * answers their paths within it.
 */
export function removeTruncatedWalSegments(replicaDir: string): string[] {
  const generations = join(replicaDir, 'generations');
  if (!existsSync(generations)) return [];
  const removed: string[] = [];
  for (const generation of readdirSync(generations)) {
    const wal = join(generations, generation, 'wal');
    if (!existsSync(wal)) continue;
    for (const name of readdirSync(wal)) {
      const path = join(wal, name);
      if (wholeLz4Frame(readFileSync(path))) continue;
      rmSync(path);
      removed.push(relative(replicaDir, path));
    }
  }
  return removed;
}
