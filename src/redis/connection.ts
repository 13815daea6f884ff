import { connect } from 'node:net';
import { RedisClient } from 'bun';
import type { RedisSettings } from '@/config';

/** A command that gets no answer within this long counts as Redis being down. */
const COMMAND_TIMEOUT_MS = 2_000;
/**
 * After a command got no reply in time, later ones fail at once for this
 * long rather than each hold its request for the whole timeout; the first
 * command after it finds out whether Redis answers again.
 */
const QUIET_AFTER_TIMEOUT_MS = 1_000;
/** How long the start-up check waits for a connection. */
const CONNECT_TIMEOUT_MS = 3_000;
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

/** The host and port a Redis URL names (6379 when it names none). */
export function addressOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port: parsed.port ? Number(parsed.port) : 6379 };
}

/** Whether a TCP connection to host:port opens; otherwise the socket error's code. */
function probe(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: CONNECT_TIMEOUT_MS });
    const done = (code: string | undefined) => {
      socket.destroy();
      resolve(code);
    };
    socket.once('connect', () => done(undefined));
    socket.once('timeout', () => done('ETIMEDOUT'));
    socket.once('error', (error) => done(codeOf(error) || error.message));
  });
}

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
    this.#client = new RedisClient(settings.url, {
      connectionTimeout: CONNECT_TIMEOUT_MS,
      autoReconnect: true,
      maxRetries: 20,
      enableOfflineQueue: false,
    });
    // The client gives up after maxRetries; keep trying at a steady pace.
    this.#client.onclose = () => this.#scheduleReconnect();
    this.#connect();
  }

  /**
   * Connects and sends PING; resolves to undefined, or to why it could not
   * (`cannot connect to 127.0.0.1:6390 (ECONNREFUSED)`), for the start-up check.
   */
  static async check(settings: RedisSettings): Promise<string | undefined> {
    const { host, port } = addressOf(settings.url);
    const cannot = (reason: string) => `cannot connect to ${host}:${port} (${reason})`;
    const socketError = await probe(host, port);
    if (socketError) return cannot(socketError);
    const client = new RedisClient(settings.url, {
      connectionTimeout: CONNECT_TIMEOUT_MS,
      autoReconnect: false,
      enableOfflineQueue: false,
    });
    try {
      await client.connect();
      await client.send('PING', []);
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
