import { type RedisConnection, RedisScript } from './connection';

/** Each instance's share of a limit while Redis is unreachable: never 0, or it would refuse everyone. */
export const shareOf = (limit: number, instances: number) =>
  Math.max(1, Math.floor(limit / Math.max(1, instances)));

/** How often an instance says it is alive. */
export const HEARTBEAT_EVERY_MS = 5_000;
/** An instance not heard from for this long is no longer counted. */
export const HEARTBEAT_TIMEOUT_MS = 15_000;

/**
 * KEYS[1] the set of instances by last heartbeat; ARGV: now, this
 * instance, the timeout. Records the beat, forgets the silent, returns how
 * many are live.
 */
const BEAT_SCRIPT = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return redis.call('ZCARD', KEYS[1])
`;

const beatScript = new RedisScript(BEAT_SCRIPT);

/**
 * The instances sharing a Redis, counted through heartbeats. The count is
 * the one last seen, so it is still known while Redis is unreachable —
 * which is when it is needed: each instance then limits on its own at
 * limit ÷ count.
 */
export class LiveInstances {
  readonly #redis: RedisConnection;
  readonly #instance: string;
  #count = 1;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(redis: RedisConnection, instance: string) {
    this.#redis = redis;
    this.#instance = instance;
  }

  /** Live instances at the last heartbeat (this one included; 1 before the first). */
  get count(): number {
    return this.#count;
  }

  /** One heartbeat now; a heartbeat that cannot reach Redis keeps the last count. */
  async beat(): Promise<number> {
    try {
      const args = [String(Date.now()), this.#instance, String(HEARTBEAT_TIMEOUT_MS)];
      const live = Number(await beatScript.run(this.#redis, [this.#key()], args));
      this.#count = Math.max(1, live);
    } catch {}
    return this.#count;
  }

  /** Beats now and every HEARTBEAT_EVERY_MS. */
  start(): void {
    if (this.#timer) return;
    void this.beat();
    this.#timer = setInterval(() => void this.beat(), HEARTBEAT_EVERY_MS);
    this.#timer.unref?.();
  }

  /** Stops beating and leaves the count at once (a clean shutdown). */
  async leave(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#redis.send('ZREM', [this.#key(), this.#instance]).catch(() => undefined);
  }

  #key(): string {
    return this.#redis.key('instances');
  }
}
