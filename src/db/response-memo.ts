import type { Db } from '@/db/client';
import { WriteWatch } from '@/db/write-watch';
import type { Clock } from '@/kernel/clock';

export interface ResponseMemoOptions {
  db: Db;
  clock: Clock;
  /** `false` (READ_CACHE=off) computes every answer. */
  enabled?: boolean;
  /** Most answers held. */
  maxEntries?: number;
  /** Most characters of body text held, all answers together. */
  maxChars?: number;
}

/**
 * Serialised answers of list reads (a page of properties, of transactions),
 * by a key that names everything the answer depends on besides the data,
 * kept until the database changes: every entry goes as soon as the
 * `WriteWatch` sees a write, whoever made it. A read is what a fresh query
 * would give. Bounded in count and size; the oldest answer makes room.
 *
 * Why: a 30-property page costs many times a property read to query and
 * serialise, and the same pages are asked for over and over between writes
 * (docs/performance.md).
 */
export class ResponseMemo {
  readonly #watch: WriteWatch;
  readonly #enabled: boolean;
  readonly #maxEntries: number;
  readonly #maxChars: number;
  readonly #answers = new Map<string, string>();
  #chars = 0;

  constructor({
    db,
    clock,
    enabled = true,
    maxEntries = 2000,
    maxChars = 16 * 1024 * 1024,
  }: ResponseMemoOptions) {
    this.#watch = new WriteWatch(db.$client, clock);
    this.#enabled = enabled;
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
  }

  get size(): number {
    return this.#answers.size;
  }

  /** The answer for `key`: remembered, or `compute()`d and remembered (a throw stores nothing). */
  answer(key: string, compute: () => string): string {
    if (!this.#enabled) return compute();
    if (this.#watch.changed()) this.clear();
    const known = this.#answers.get(key);
    if (known !== undefined) return known;
    const body = compute();
    if (body.length > this.#maxChars) return body;
    while (
      this.#answers.size > 0 &&
      (this.#answers.size >= this.#maxEntries || this.#chars + body.length > this.#maxChars)
    ) {
      const [oldest, text] = this.#answers.entries().next().value!;
      this.#answers.delete(oldest);
      this.#chars -= text.length;
    }
    this.#answers.set(key, body);
    this.#chars += body.length;
    return body;
  }

  clear(): void {
    this.#answers.clear();
    this.#chars = 0;
  }
}
