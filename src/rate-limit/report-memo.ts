import { secondsUntil } from './calendar';
import { MAX_CACHED_POLICIES, type Policy } from './policies';
import type { WindowUsage } from './store';

/** What `ReportMemos.value` built for one subject, and the figures it was built from. */
interface ReportMemo {
  policy: Policy;
  figures: number[];
  value: unknown;
}

/**
 * The last report built per subject, given again while nothing it shows has
 * moved: a report and its rate-limit headers are made of the policy and, per
 * window, its limit, use, reset second and whole seconds to the reset.
 */
export class ReportMemos {
  readonly #memos = new Map<string, ReportMemo>();
  /** Values given again instead of built (tests and diagnostics). */
  hits = 0;

  value<T>(
    key: string,
    policy: Policy,
    windows: readonly WindowUsage[],
    now: number,
    build: (now: number) => T,
  ): T {
    const figures: number[] = [];
    for (const usage of windows) {
      figures.push(
        usage.limit,
        usage.used,
        Math.ceil(usage.resetAt / 1000),
        secondsUntil(usage.resetAt, now),
      );
    }
    const known = this.#memos.get(key);
    if (known && known.policy === policy && sameNumbers(known.figures, figures)) {
      this.hits++;
      return known.value as T;
    }
    const value = build(now);
    if (this.#memos.size >= MAX_CACHED_POLICIES) this.#memos.clear();
    this.#memos.set(key, { policy, figures, value });
    return value;
  }

  clear(): void {
    this.#memos.clear();
  }
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
