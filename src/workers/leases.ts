import type { Logger } from '@/logger';
import { type RedisConnection, RedisScript, RedisUnavailable } from '@/redis/connection';
import { keepDoneMs } from './ticks';

/** A running lease lasts this long unless its run renews it (a third of it apart). */
export const LEASE_HOLD_MS = 60_000;

/** What a claim of a job's tick found. */
export type Claim =
  /** This instance runs the tick. */
  | 'claimed'
  /** Another instance has this tick (or a later one). */
  | 'taken'
  /** A run of an earlier tick is still going somewhere: this tick is skipped. */
  | 'running';

/**
 * Who runs a scheduled job when instances share leadership: one lease per
 * job, whose value is the tick it was claimed for (the fencing token) and
 * the instance holding it. Every method throws RedisUnavailable without
 * Redis: no lease, no run.
 */
export interface JobLeases {
  claim(job: string, tick: number, holdMs: number): Promise<Claim>;
  /** Extends a running lease; false once it was lost (expired and claimed elsewhere). */
  renew(job: string, tick: number, holdMs: number): Promise<boolean>;
  /** Marks the tick done, kept `keepMs` so a late instance does not run it again. */
  finish(job: string, tick: number, keepMs: number): Promise<void>;
}

/**
 * The lease is `"<tick> <instance> running|done"`. A claim succeeds only
 * for a tick later than the one held, and only once the run holding it has
 * finished (or its lease expired with its instance).
 * KEYS[1] the lease; ARGV: tick, instance, hold (ms).
 */
const CLAIM_SCRIPT = `
local held = redis.call('GET', KEYS[1])
if held then
  local tick, state = string.match(held, '^(%d+) %S+ (%a+)$')
  if tonumber(tick) >= tonumber(ARGV[1]) then return 'taken' end
  if state == 'running' then return 'running' end
end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2] .. ' running', 'PX', ARGV[3])
return 'claimed'
`;

/** Changes the lease only while this instance holds it for this tick. ARGV: expected value, new value, ms. */
const UPDATE_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`;

const claimScript = new RedisScript(CLAIM_SCRIPT);
const updateScript = new RedisScript(UPDATE_SCRIPT);

export function redisJobLeases(redis: RedisConnection, instance: string): JobLeases {
  const keyOf = (job: string) => redis.key('job', `{${job}}`);
  const running = (tick: number) => `${tick} ${instance} running`;
  return {
    async claim(job, tick, holdMs) {
      const args = [String(tick), instance, String(holdMs)];
      return (await claimScript.run(redis, [keyOf(job)], args)) as Claim;
    },
    async renew(job, tick, holdMs) {
      const args = [running(tick), running(tick), String(holdMs)];
      return (await updateScript.run(redis, [keyOf(job)], args)) === 1;
    },
    async finish(job, tick, keepMs) {
      const args = [running(tick), `${tick} ${instance} done`, String(keepMs)];
      await updateScript.run(redis, [keyOf(job)], args);
    },
  };
}

/**
 * Renews the lease of a running tick until the returned function is
 * called; `onLost` once a renewal finds the lease gone or held by another
 * (a renewal that cannot reach Redis is tried again at the next interval).
 */
export function holdWhileRunning(
  leases: JobLeases,
  job: string,
  tick: number,
  onLost: () => void,
  holdMs = LEASE_HOLD_MS,
): () => void {
  const timer = setInterval(() => {
    leases.renew(job, tick, holdMs).then(
      (held) => {
        if (held) return;
        clearInterval(timer);
        onLost();
      },
      () => undefined,
    );
  }, holdMs / 3);
  timer.unref?.();
  return () => clearInterval(timer);
}

/**
 * A tick under leadership: claims it, runs `run` when claimed, and marks
 * the tick done (kept past the next tick). Null when another instance has
 * the tick, a run of an earlier one is still going, or Redis cannot give a
 * lease (no lease, no run).
 */
export async function runLeased<T>(
  leases: JobLeases,
  job: { name: string; pattern: string },
  tick: number,
  logger: Logger,
  run: () => Promise<T>,
): Promise<T | null> {
  let claim: Claim;
  try {
    claim = await leases.claim(job.name, tick, LEASE_HOLD_MS);
  } catch (error) {
    if (!(error instanceof RedisUnavailable)) throw error;
    logger.warn('no job lease without Redis; scheduled run skipped', { job: job.name });
    return null;
  }
  if (claim !== 'claimed') {
    if (claim === 'running') {
      logger.warn('job still running elsewhere; scheduled run skipped', { job: job.name });
    }
    return null;
  }
  const result = await run();
  await leases.finish(job.name, tick, keepDoneMs(job.pattern, tick)).catch(() => {
    // Without Redis the running lease expires by itself, LEASE_HOLD_MS after its last renewal.
  });
  return result;
}
