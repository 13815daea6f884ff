import { RedisClient, type RedisOptions } from 'bun';
import type { RedisSettings } from '@/config';
import { CONNECT_TIMEOUT_MS, handshake, targetOf } from './handshake';

/** A command that gets no answer within this long counts as Redis being down. */
const COMMAND_TIMEOUT_MS = 2_000;
/**
 * After a command got no reply in time, later ones fail at once for this
 * long rather than each hold its request for the whole timeout; the first
 * command after it finds out whether Redis answers again.
 */
const QUIET_AFTER_TIMEOUT_MS = 1_000;
/** Pause between reconnection attempts once the client has given up on its own. */
const RECONNECT_EVERY_MS = 1_000;

/**
 * Redis did not answer: not connected, the connection dropped, or no reply
 * in time. Callers decide what that means for them (the limiter falls back
 * to per-instance windows, sign-in fails closed, jobs do not run).
 */
export class RedisUnavailable extends Error {
  constructor(reason: string) {
    super(`redis unavailable: ${reason}`);
    this.name = 'RedisUnavailable';
  }
}

const codeOf = (error: unknown) =>
  error instanceof Error && 'code' in error ? String(error.code) : '';

/** Bun's client for the settings: TLS from a rediss:// URL, trusting REDIS_TLS_CA_FILE's CAs when set. */
export const clientOf = (settings: RedisSettings, options: RedisOptions) =>
  new RedisClient(settings.url, {
    connectionTimeout: CONNECT_TIMEOUT_MS,
    enableOfflineQueue: false,
    ...options,
    ...(settings.tlsCa ? { tls: { ca: settings.tlsCa } } : {}),
  });

/**
 * One connection to the shared Redis. Commands fail at once while it is
 * down (no offline queue: a request must not wait for a server that may
 * not come back) and the client reconnects in the background, so the
 * service recovers without a restart once Redis answers again.
 */
export class RedisConnection {
  readonly prefix: string;
  readonly #client: RedisClient;
  #closed = false;
  /** The connection attempt in progress, if any: a command waits for it rather than fail. */
  #connecting: Promise<void> | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  /** `performance.now()` until which commands fail at once (a command timed out before it). */
  #quietUntil = 0;

  constructor(settings: RedisSettings) {
    this.prefix = settings.prefix;
    this.#client = clientOf(settings, { autoReconnect: true, maxRetries: 20 });
    // The client gives up after maxRetries; keep trying at a steady pace.
    this.#client.onclose = () => this.#scheduleReconnect();
    this.#connect();
  }

  /**
   * Connects, signs in and sends PING; resolves to undefined, or to one
   * phrase saying why not (`cannot connect to 127.0.0.1:6390 (ECONNREFUSED: nothing listens there; …)`,
   * `127.0.0.1:6390 refused: WRONGPASS …`), never showing the password, for
   * the start-up check.
   */
  static async check(settings: RedisSettings): Promise<string | undefined> {
    const target = targetOf(settings.url);
    const where = `${target.host}:${target.port}`;
    const cannot = (reason: string) => `cannot connect to ${where} (${reason})`;
    const problem = await handshake(target, settings.tlsCa);
    if (problem) {
      return 'refused' in problem
        ? `${where} refused: ${problem.refused}`
        : cannot(problem.transport);
    }
    // Bun's own client must connect too: it is the one the service uses.
    const client = clientOf(settings, { autoReconnect: false });
    try {
      await client.connect();
      await client.send('PING', []);
      // A cluster node answers PING, then refuses the keys of other nodes' slots (MOVED).
      const info = await client.send('INFO', ['cluster']).catch(() => '');
      if (String(info).includes('cluster_enabled:1')) {
        return `${where} is a Redis Cluster node; Redis Cluster is not supported`;
      }
      return undefined;
    } catch (error) {
      return cannot(error instanceof Error ? error.message : String(error));
    } finally {
      client.close();
    }
  }

  /** A key of this service: the prefix, then the parts joined by `:`. */
  key(...parts: readonly string[]): string {
    return this.prefix + parts.join(':');
  }

  /** One command; RedisUnavailable when the server cannot be reached or does not answer in time. */
  async send(command: string, args: readonly string[]): Promise<unknown> {
    if (this.#closed) throw new RedisUnavailable('connection closed');
    if (performance.now() < this.#quietUntil) throw new RedisUnavailable('no reply recently');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.#quietUntil = performance.now() + QUIET_AFTER_TIMEOUT_MS;
        reject(new RedisUnavailable('no reply in time'));
      }, COMMAND_TIMEOUT_MS);
    });
    try {
      if (!this.#client.connected && this.#connecting) {
        await Promise.race([this.#connecting, timeout]);
      }
      return await Promise.race([this.#client.send(command, [...args]), timeout]);
    } catch (error) {
      if (error instanceof RedisUnavailable) throw error;
      // A reply of the server (a script error, NOSCRIPT) is not an outage.
      if (codeOf(error) === 'ERR_REDIS_SERVER_ERROR') throw error;
      throw new RedisUnavailable(error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether the server answers a PING now. */
  async ping(): Promise<boolean> {
    try {
      return (await this.send('PING', [])) === 'PONG';
    } catch {
      return false;
    }
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#client.onclose = null;
    this.#client.close();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (!this.#closed && !this.#client.connected) this.#connect();
    }, RECONNECT_EVERY_MS);
    this.#retry.unref?.();
  }

  #connect(): void {
    const attempt: Promise<void> = this.#client
      .connect()
      .then(
        () => {},
        () => this.#scheduleReconnect(),
      )
      .finally(() => {
        if (this.#connecting === attempt) this.#connecting = undefined;
      });
    this.#connecting = attempt;
  }
}

/**
 * A Lua script run by its SHA1 (EVALSHA), sent whole (EVAL) only when the
 * server does not know it yet — after its start or a SCRIPT FLUSH.
 */
export class RedisScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = new Bun.CryptoHasher('sha1').update(source).digest('hex');
  }

  async run(
    redis: RedisConnection,
    keys: readonly string[],
    args: readonly string[],
  ): Promise<unknown> {
    const rest = [String(keys.length), ...keys, ...args];
    try {
      return await redis.send('EVALSHA', [this.#sha, ...rest]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.send('EVAL', [this.#source, ...rest]);
    }
  }
}
