import { RedisConnection } from '@/redis/connection';
import { freePort } from '../accounts/server-process';
import { closeAtEnd } from './harness';

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

/**
 * A redis-server of the test's own on a free loopback port, keeping nothing
 * on disk: a test may stop and start it again (same port) to cut Redis off
 * from the service and give it back. Never the shared server.
 */
export async function ownRedisServer() {
  const port = freePort();
  const url = `redis://127.0.0.1:${port}`;
  let server: ReturnType<typeof Bun.spawn> | undefined;
  const start = async () => {
    server = Bun.spawn(
      [
        'redis-server',
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
      ],
      { stdout: 'ignore', stderr: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      if (!(await RedisConnection.check({ url, prefix: '' }))) return;
      await Bun.sleep(50);
    }
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
  return { url, port, start, stop, pause, resume };
}
