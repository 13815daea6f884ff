import type { RedisSettings } from '@/config';
import { clientOf, type RedisConnection } from './connection';

/**
 * A notice every instance hears: `announce` publishes on a channel of this
 * service, and each instance's listener runs when a notice arrives (its
 * own included). A notice published while an instance was cut off from
 * Redis is lost to it, so the listener also runs each time its subscriber
 * connects again: whatever it guards is then refreshed as if told.
 */
export class RedisNotices {
  readonly #redis: RedisConnection;
  readonly #settings: RedisSettings;
  readonly #closers: (() => void)[] = [];

  constructor(redis: RedisConnection, settings: RedisSettings) {
    this.#redis = redis;
    this.#settings = settings;
  }

  /** Publishes a notice (with what it says) on `channel`; false when Redis could not be reached. */
  async announce(channel: string, message = '1'): Promise<boolean> {
    try {
      await this.#redis.send('PUBLISH', [this.#redis.key('notice', channel), message]);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Runs `listener` with what each notice of `channel` says, and with
   * undefined after each reconnection (something may have been missed).
   */
  listen(channel: string, listener: (message?: string) => void): void {
    // A subscribed connection can run nothing else: one of its own.
    const subscriber = clientOf(this.#settings, { autoReconnect: true, maxRetries: 1_000_000 });
    const key = this.#redis.key('notice', channel);
    let connected = false;
    subscriber.onconnect = () => {
      if (connected) listener();
      connected = true;
      subscriber.subscribe(key, (message) => listener(message)).catch(() => {});
    };
    subscriber.connect().catch(() => {});
    this.#closers.push(() => {
      subscriber.onconnect = null;
      subscriber.close();
    });
  }

  close(): void {
    for (const close of this.#closers.splice(0)) close();
  }
}
