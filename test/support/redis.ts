import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RedisConnection } from '@/redis/connection';
import { handshake, targetOf } from '@/redis/handshake';
import { freePort } from '../accounts/server-process';
import { closeAtEnd, tempDir } from './harness';

/** The shared Redis of the machine; tests that need it skip when it does not answer. */
export const SHARED_REDIS_URL = 'redis://127.0.0.1:6379';

const problem = await RedisConnection.check({ url: SHARED_REDIS_URL, prefix: '' });

/** Why the Redis tests are skipped here, or undefined when Redis answers. */
export const redisSkipReason = problem ? `no Redis at 127.0.0.1:6379: ${problem}` : undefined;

/** A describe title that shows, when skipped, why. */
export const redisTitle = (title: string) =>
  redisSkipReason ? `${title} (skipped: ${redisSkipReason})` : title;

/** The environment of an app on the shared Redis, under a prefix of its own. */
export const redisEnv = (): Record<string, string> => ({
  REDIS_URL: SHARED_REDIS_URL,
  REDIS_PREFIX: `test-${crypto.randomUUID().slice(0, 8)}:`,
});

/** A connection under a prefix of its own (the shared Redis by default), closed when the run ends. */
export function testConnection(url = SHARED_REDIS_URL): RedisConnection {
  const connection = new RedisConnection({ url, prefix: redisEnv().REDIS_PREFIX! });
  closeAtEnd(connection);
  return connection;
}

/** Whether the `redis-server` binary is installed (tests that start their own skip without it). */
export const redisServerInstalled = Bun.which('redis-server') !== null;

/** A describe title of tests that start their own redis-server, saying why when they are skipped. */
export const ownRedisTitle = (title: string) =>
  redisServerInstalled ? title : `${title} (skipped: no redis-server installed)`;

/** The options of a test's own redis-server. */
export interface OwnRedisOptions {
  /** The default user's password (`requirepass`). */
  password?: string;
  /** ACL users besides the default, each a `user` directive's words: `['app', 'on', '>pw', '~app:*', '+@all']`. */
  users?: string[][];
  /**
   * Listen on TLS only, with a certificate for 127.0.0.1 signed by a CA of
   * the test's own; `clientCertificates`: and want one from every client.
   */
  tls?: boolean | 'clientCertificates';
  /** A node of a Redis Cluster (alone, with no slots: it answers PING and refuses every key). */
  cluster?: boolean;
}

/**
 * Whether this redis-server was built with TLS and openssl is there to make
 * certificates (a build without TLS refuses `tls-port` as a bad directive).
 */
export const redisTlsSupported =
  redisServerInstalled &&
  Bun.which('openssl') !== null &&
  !Bun.spawnSync(['redis-server', '--port', '0', '--tls-port', '0', '--save', ''], {
    stdout: 'ignore',
  })
    .stderr.toString()
    .includes('FATAL CONFIG');

/** A describe title of tests that need a TLS redis-server, saying why when they are skipped. */
export const tlsRedisTitle = (title: string) =>
  redisTlsSupported
    ? title
    : `${title} (skipped: ${redisServerInstalled ? 'redis-server built without TLS, or no openssl' : 'no redis-server installed'})`;

/**
 * A CA and a certificate for 127.0.0.1 and localhost signed by it, as PEM
 * files in a temp dir: `ca.pem`, `server.pem`, `server-key.pem`.
 */
export function testCertificates(): string {
  const dir = tempDir('redis-tls-');
  const openssl = (...args: string[]) => {
    const run = Bun.spawnSync(['openssl', ...args], { cwd: dir, stdout: 'ignore' });
    if (run.exitCode !== 0) throw new Error(`openssl ${args[0]}: ${run.stderr.toString()}`);
  };
  const key = ['-newkey', 'rsa:2048', '-nodes', '-days', '2'];
  openssl(
    'req',
    '-x509',
    ...key,
    '-subj',
    '/CN=Test CA',
    '-keyout',
    'ca-key.pem',
    '-out',
    'ca.pem',
  );
  openssl(
    'req',
    ...key,
    '-subj',
    '/CN=localhost',
    '-keyout',
    'server-key.pem',
    '-out',
    'server.csr',
  );
  writeFileSync(join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca-key.pem',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'san.cnf',
    '-out',
    'server.pem',
  );
  return dir;
}

/**
 * A redis-server of the test's own on a free loopback port, keeping nothing
 * on disk: a test may stop and start it again (same port) to cut Redis off
 * from the service and give it back. Never the shared server. `url` names
 * no user or password; with `tls`, it is `rediss://` and `caFile` is the
 * CA that signed the server's certificate.
 */
export async function ownRedisServer({
  password,
  users = [],
  tls = false,
  cluster = false,
}: OwnRedisOptions = {}) {
  const port = freePort();
  const url = `${tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`;
  const certificates = tls ? testCertificates() : undefined;
  const caFile = certificates && join(certificates, 'ca.pem');
  const listen = certificates
    ? [
        ...['--port', '0', '--tls-port', String(port)],
        ...['--tls-auth-clients', tls === 'clientCertificates' ? 'yes' : 'no'],
        ...['--tls-cert-file', join(certificates, 'server.pem')],
        ...['--tls-key-file', join(certificates, 'server-key.pem')],
        ...['--tls-ca-cert-file', join(certificates, 'ca.pem')],
      ]
    : ['--port', String(port)];
  const access = [
    ...(password ? ['--requirepass', password] : []),
    ...users.flatMap((words) => ['--user', ...words]),
    ...(cluster
      ? ['--cluster-enabled', 'yes', '--cluster-config-file', join(tempDir(), 'nodes.conf')]
      : []),
  ];
  // The readiness check signs in as the default user, whose password the URL then carries.
  const target = targetOf(
    password ? url.replace('//', `//:${encodeURIComponent(password)}@`) : url,
  );
  const tlsCa = caFile && readFileSync(caFile, 'utf8');
  let server: ReturnType<typeof Bun.spawn> | undefined;
  const start = async () => {
    server = Bun.spawn(
      [
        'redis-server',
        ...listen,
        ...access,
        ...['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      ],
      { stdout: 'ignore', stderr: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      const problem = await handshake(target, tlsCa);
      // Wanting a client certificate, the server is up once it ends the handshake for want of one.
      const tlsRefused = problem && 'transport' in problem && problem.transport.startsWith('TLS: ');
      if (!problem || (tls === 'clientCertificates' && tlsRefused)) {
        return;
      }
      await Bun.sleep(50);
    }
    // Not left running past the test that could not use it.
    await stop();
    throw new Error(`redis-server did not start on port ${port}`);
  };
  const stop = async () => {
    server?.kill('SIGCONT');
    server?.kill('SIGKILL');
    await server?.exited;
    server = undefined;
  };
  /** SIGSTOP: connections stay open but nothing answers (a hung server, a network stall). */
  const pause = () => server?.kill('SIGSTOP');
  const resume = () => server?.kill('SIGCONT');
  await start();
  return { url, port, caFile, start, stop, pause, resume };
}
