import type { Caller } from '@/auth/tokens';
import { fail } from '@/kernel/errors';
import type { EventPage, EventQuery } from './schemas';
import { type Announced, listenForEvents, waitsReleased } from './signal';
import type { EventStore } from './store';

/** How many long polls one process holds open at once (`EVENTS_LONG_POLLS_*`). */
export interface WaitLimits {
  perCaller: number;
  total: number;
}

/** How often the waiters look for events other processes appended. */
export const LOOK_AGAIN_MS = 1000;
/**
 * New ids one look reads the owners and types of; past it (a bulk import by
 * another process) it wakes every waiter instead, which is what each would
 * have done once a second without it.
 */
export const MOST_IDS_LOOKED_AT = 1000;

/** One long poll while it is open. */
interface Waiter {
  key: string;
  /** The owner whose events it reads; null: an employee, who reads every event. */
  owner: string | null;
  types: ReadonlySet<string> | undefined;
  /** When it is answered empty (`performance.now()`). */
  deadline: number;
  /** Set by an announcement it may see, cleared before each read: none is missed between the two. */
  woken: boolean;
  /** Ends its pause, while it pauses. */
  resume: (() => void) | undefined;
}

type Feed = Pick<EventStore, 'readEvents' | 'lastEventId' | 'appendedBetween'>;

const keyOf = (caller: Caller) => `${caller.aud}:${caller.sub}`;

/** Whether an announcement of `types` may hold an event `waiter` reads. */
const wants = (waiter: Waiter, types: ReadonlySet<string>): boolean => {
  if (!waiter.types) return true;
  for (const type of types) if (waiter.types.has(type)) return true;
  return false;
};

/**
 * The long polls of GET /listings/events in this process. Each holds an
 * empty page open for up to its `wait`, and reads the feed again only when
 * an event it may see was announced: its owner's (a customer's), anyone's
 * (an employee's), of a type it asked for. Writes of this process are
 * announced as they commit (`announceEvent`); for other processes' (another
 * instance on PostgreSQL, a CLI tool), one look a second for all the
 * waiters reads the last event id and, when it moved, whom the new events
 * concern, and wakes those waiters alone. An event of this process is seen
 * by that look too, so a waiter that may see it can read once more for it.
 *
 * Open polls are capped per caller and in all (`WaitLimits`); past a cap
 * the poll is refused with 429 `events.too_many_waits`, `Retry-After` the
 * seconds until the first of those open polls ends. The caps hold per
 * process, also when instances share Redis.
 */
export class FeedWaits {
  readonly #feed: Feed;
  readonly #limits: WaitLimits;
  readonly #all = new Set<Waiter>();
  readonly #byCaller = new Map<string, Set<Waiter>>();
  /** Customers' waiters by the owner id they read. */
  readonly #byOwner = new Map<string, Set<Waiter>>();
  /** Employees' waiters: every event may be theirs. */
  readonly #everyone = new Set<Waiter>();
  #unsubscribe: (() => void) | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** The last id the look has seen; undefined while no waiter is open. */
  #seen: number | undefined;
  /** The first look's read of the last id, which each new waiter awaits before its first read. */
  #baseline: Promise<void> | undefined;
  /** The look running now, if any. */
  #look: Promise<void> | undefined;

  constructor(feed: Feed, limits: WaitLimits) {
    this.#feed = feed;
    this.#limits = limits;
  }

  /** Long polls open now: in all, or of one caller. */
  openPolls(caller?: Caller): number {
    return caller ? (this.#byCaller.get(keyOf(caller))?.size ?? 0) : this.#all.size;
  }

  /** Long polls waiting now (read, found nothing, paused): what tests wait for before a write. */
  pausedPolls(): number {
    let paused = 0;
    for (const waiter of this.#all) if (waiter.resume) paused++;
    return paused;
  }

  /**
   * A page of the feed, held open while it is empty until an event the
   * caller may see is announced, `query.wait` seconds pass, `abort` fires
   * (the client went away) or the service stops (`releaseWaits`).
   */
  async wait(caller: Caller, query: EventQuery, abort?: AbortSignal): Promise<EventPage> {
    const waiter = this.#enter(caller, query);
    try {
      await this.#baseline;
      for (;;) {
        waiter.woken = false;
        const page = await this.#feed.readEvents(caller, query);
        const left = waiter.deadline - performance.now();
        if (page.data.length > 0 || left <= 0 || abort?.aborted || waitsReleased()) return page;
        await this.#pause(waiter, left, abort);
      }
    } finally {
      this.#leave(waiter);
    }
  }

  /**
   * The look for other processes' events: one read of the last id, and
   * when it moved one read of whom the new events concern. Runs every
   * `LOOK_AGAIN_MS` while a waiter is open; tests call it to look at once.
   */
  lookAgain(): Promise<void> {
    // One look at a time: a call during one runs after it (the timer's is skipped instead).
    const look = (this.#look ?? Promise.resolve()).then(() => this.#lookOnce());
    this.#look = look;
    void look.finally(() => {
      if (this.#look === look) this.#look = undefined;
    });
    return look;
  }

  async #lookOnce(): Promise<void> {
    const seen = this.#seen;
    if (seen === undefined) return;
    try {
      const last = await this.#feed.lastEventId();
      if (last <= seen) return;
      const announced = new Map<string | null, Set<string>>();
      if (last - seen <= MOST_IDS_LOOKED_AT) {
        for (const { ownerId, type } of await this.#feed.appendedBetween(seen, last)) {
          const types = announced.get(ownerId);
          if (types) types.add(type);
          else announced.set(ownerId, new Set([type]));
        }
      }
      // The waiters may all have gone meanwhile: the next one starts from its own look.
      if (this.#seen === undefined) return;
      this.#seen = Math.max(this.#seen, last);
      if (last - seen > MOST_IDS_LOOKED_AT) this.#wakeAll();
      else this.#hear(announced);
    } catch {
      // The database did not answer: each waiter reads, and answers what its read gives.
      this.#wakeAll();
    }
  }

  #enter(caller: Caller, query: EventQuery): Waiter {
    const key = keyOf(caller);
    const mine = this.#byCaller.get(key) ?? new Set<Waiter>();
    if (mine.size >= this.#limits.perCaller) {
      throw fail('events.too_many_waits', {
        retryAfterSeconds: this.#secondsToFirstEnd(mine),
        detail: `At most ${this.#limits.perCaller} long polls of the change feed may be open at once per caller: retry once one is answered`,
      });
    }
    if (this.#all.size >= this.#limits.total) {
      throw fail('events.too_many_waits', {
        retryAfterSeconds: this.#secondsToFirstEnd(this.#all),
        detail: 'The service holds as many long polls of the change feed as it may: retry shortly',
      });
    }
    const waiter: Waiter = {
      key,
      owner: caller.aud === 'customer' ? caller.sub : null,
      types: query.types && new Set(query.types),
      deadline: performance.now() + (query.wait ?? 0) * 1000,
      woken: false,
      resume: undefined,
    };
    this.#all.add(waiter);
    if (this.#all.size === 1) this.#start();
    this.#byCaller.set(key, mine.add(waiter));
    if (waiter.owner === null) this.#everyone.add(waiter);
    else {
      const ofOwner = this.#byOwner.get(waiter.owner) ?? new Set<Waiter>();
      this.#byOwner.set(waiter.owner, ofOwner.add(waiter));
    }
    return waiter;
  }

  #leave(waiter: Waiter): void {
    this.#all.delete(waiter);
    const mine = this.#byCaller.get(waiter.key);
    mine?.delete(waiter);
    if (mine?.size === 0) this.#byCaller.delete(waiter.key);
    if (waiter.owner === null) this.#everyone.delete(waiter);
    else {
      const ofOwner = this.#byOwner.get(waiter.owner);
      ofOwner?.delete(waiter);
      if (ofOwner?.size === 0) this.#byOwner.delete(waiter.owner);
    }
    if (this.#all.size === 0) this.#stop();
  }

  /** The first waiter: subscribe, and set where the look starts before any waiter reads. */
  #start(): void {
    this.#unsubscribe = listenForEvents({
      hear: (announced) => this.#hear(announced),
      release: () => this.#wakeAll(),
    });
    this.#timer = setInterval(() => {
      if (!this.#look) void this.lookAgain();
    }, LOOK_AGAIN_MS);
    this.#timer.unref?.();
    // Events committed before this read are in every waiter's first read, which follows it.
    const from = (last: number) => {
      if (this.#all.size > 0) this.#seen ??= last;
    };
    // Without a starting point nothing is seen; the waiters' own reads fail alike.
    const unknown = () => from(0);
    try {
      const last = this.#feed.lastEventId();
      if (last instanceof Promise) this.#baseline = last.then(from, unknown);
      else from(last);
    } catch {
      unknown();
    }
  }

  /** The last waiter is gone: nothing listens or looks until the next. */
  #stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#seen = undefined;
    this.#baseline = undefined;
  }

  #hear(announced: Announced): void {
    for (const [owner, types] of announced) {
      if (owner === null) continue;
      for (const waiter of this.#byOwner.get(owner) ?? []) if (wants(waiter, types)) wake(waiter);
    }
    if (this.#everyone.size === 0) return;
    const types = new Set<string>();
    for (const some of announced.values()) for (const type of some) types.add(type);
    for (const waiter of this.#everyone) if (wants(waiter, types)) wake(waiter);
  }

  #wakeAll(): void {
    for (const waiter of this.#all) wake(waiter);
  }

  /** Until `waiter` is woken (at once if it was during its read), `ms` pass or `abort` fires. */
  #pause(waiter: Waiter, ms: number, abort?: AbortSignal): Promise<void> {
    if (waiter.woken || waitsReleased() || abort?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        waiter.resume = undefined;
        abort?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiter.resume = done;
      abort?.addEventListener('abort', done, { once: true });
    });
  }

  #secondsToFirstEnd(waiters: Iterable<Waiter>): number {
    let first = Number.POSITIVE_INFINITY;
    for (const waiter of waiters) first = Math.min(first, waiter.deadline);
    return Math.max(1, Math.ceil((first - performance.now()) / 1000));
  }
}

function wake(waiter: Waiter): void {
  waiter.woken = true;
  waiter.resume?.();
}
