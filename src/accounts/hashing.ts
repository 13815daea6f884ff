import { fail } from '@/kernel/errors';

/** Password hashing as the accounts domain uses it (argon2id in production). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password and for a hash it cannot read. */
  verify(password: string, hash: string): Promise<boolean>;
}

export const argon2idHasher: PasswordHasher = {
  hash: (password) => Bun.password.hash(password, { algorithm: 'argon2id' }),
  async verify(password, hash) {
    try {
      return await Bun.password.verify(password, hash);
    } catch {
      return false;
    }
  },
};

/** What a caller told "busy" should wait before trying again. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Who a hash is for: the client address, and the account it concerns when
 * there is one (the email typed, or the signed-in caller). The bounded
 * hasher shares its capacity between them.
 */
export interface HashingCaller {
  address: string;
  account?: string;
}

/** A password hasher whose calls say whom they are for (`boundedHasher` shares capacity by it). */
export interface CallerHasher {
  hash(password: string, caller: HashingCaller): Promise<string>;
  verify(password: string, hash: string, caller: HashingCaller): Promise<boolean>;
}

/** A hasher with its bounds' state: calls running, and calls waiting for a slot. */
export interface BoundedHasher extends CallerHasher {
  readonly running: number;
  readonly waiting: number;
  /** Calls running or waiting of one address (`address <ip>`) or account (`account <id>`). */
  held(key: string): number;
}

/**
 * What one address or one account may hold of the slots and the queue
 * together: a quarter, at least one. Below the whole, so whoever else asks
 * always finds room.
 */
export const perCallerShare = ({ concurrency, queue }: { concurrency: number; queue: number }) =>
  Math.max(1, Math.ceil((concurrency + queue) / 4));

const keysOf = (caller: HashingCaller): string[] =>
  caller.account === undefined
    ? [`address ${caller.address}`]
    : [`address ${caller.address}`, `account ${caller.account}`];

/**
 * At most `concurrency` hashes or verifications run at once and at most
 * `queue` wait for a slot; one more is refused at once with 503
 * `service.busy` (Retry-After 1 s). Each argon2id call holds 64 MiB and a
 * core for a noticeable time: unbounded, a burst of sign-ins would take the
 * memory and the cores every other request needs.
 *
 * The capacity is shared, not first come first served: one address, or one
 * account, holds at most `perCallerShare` calls running or waiting (one
 * more of theirs is the 503), and a freed slot goes to the waiting
 * addresses in turn, so a client signing in from eight loops at once waits
 * behind everyone else's single sign-in rather than ahead of it.
 */
export function boundedHasher(
  base: PasswordHasher,
  { concurrency, queue }: { concurrency: number; queue: number },
): BoundedHasher {
  const share = perCallerShare({ concurrency, queue });
  let running = 0;
  let waitingCount = 0;
  /** Calls running or waiting per address and per account; a key at 0 is dropped. */
  const held = new Map<string, number>();
  /** The waiting calls per address, in the order the addresses are served (round robin). */
  const turns = new Map<string, (() => void)[]>();

  const hold = (keys: string[], by: number) => {
    for (const key of keys) {
      const now = (held.get(key) ?? 0) + by;
      if (now === 0) held.delete(key);
      else held.set(key, now);
    }
  };

  /** Hands the freed slot to the address whose turn it is, which then goes last. */
  function handOver(): boolean {
    const first = turns.entries().next();
    if (first.done) return false;
    const [address, waiters] = first.value;
    const next = waiters.shift()!;
    turns.delete(address);
    if (waiters.length > 0) turns.set(address, waiters);
    waitingCount--;
    next();
    return true;
  }

  async function gated<T>(caller: HashingCaller, work: () => Promise<T>): Promise<T> {
    const keys = keysOf(caller);
    if (keys.some((key) => (held.get(key) ?? 0) >= share)) {
      throw fail('service.busy', { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS });
    }
    if (running >= concurrency) {
      if (waitingCount >= queue) {
        throw fail('service.busy', { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS });
      }
      hold(keys, 1);
      waitingCount++;
      // The slot is handed over by the finishing call, so `running` never overshoots.
      await new Promise<void>((resolve) => {
        const waiters = turns.get(keys[0]!);
        if (waiters) waiters.push(resolve);
        else turns.set(keys[0]!, [resolve]);
      });
    } else {
      hold(keys, 1);
      running++;
    }
    try {
      return await work();
    } finally {
      hold(keys, -1);
      if (!handOver()) running--;
    }
  }

  return {
    hash: (password, caller) => gated(caller, () => base.hash(password)),
    verify: (password, hash, caller) => gated(caller, () => base.verify(password, hash)),
    get running() {
      return running;
    },
    get waiting() {
      return waitingCount;
    },
    held: (key) => held.get(key) ?? 0,
  };
}
