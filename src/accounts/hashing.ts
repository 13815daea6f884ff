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

/** A hasher with its bounds' state: calls running, and calls waiting for a slot. */
export interface BoundedHasher extends PasswordHasher {
  readonly running: number;
  readonly waiting: number;
}

/**
 * At most `concurrency` hashes or verifications run at once and at most
 * `queue` wait for a slot, first come first served; one more is refused at
 * once with 503 `service.busy` (Retry-After 1 s). Each argon2id call holds
 * 64 MiB and a core for a noticeable time: unbounded, a burst of sign-ins
 * would take the memory and the cores every other request needs.
 */
export function boundedHasher(
  base: PasswordHasher,
  { concurrency, queue }: { concurrency: number; queue: number },
): BoundedHasher {
  let running = 0;
  const waiting: (() => void)[] = [];

  async function gated<T>(work: () => Promise<T>): Promise<T> {
    if (running >= concurrency) {
      if (waiting.length >= queue) {
        throw fail('service.busy', { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS });
      }
      // The slot is handed over by the finishing call, so `running` never overshoots.
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else {
      running++;
    }
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  }

  return {
    hash: (password) => gated(() => base.hash(password)),
    verify: (password, hash) => gated(() => base.verify(password, hash)),
    get running() {
      return running;
    },
    get waiting() {
      return waiting.length;
    },
  };
}
