import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import type { TokenCutoff, TokenService } from './tokens';

/** Every stored cut-off: the accounts store's `tokenCutoffs()`. */
export type CutoffSource = () => MaybePromise<readonly (readonly [string, TokenCutoff])[]>;

/**
 * How the instances tell each other of a new cut-off (Redis pub/sub with
 * REDIS_URL): `listen` hears what every notice says, or undefined after a
 * reconnection, when one may have been missed.
 */
export interface CutoffNotices {
  announce(message: string): Promise<unknown>;
  listen(listener: (message?: string) => void): void;
}

/** What the accounts domain calls once a revocation has committed. */
export interface TokenRevocation {
  /** Refuses the subject's tokens up to `cutoff`, here and on every instance. */
  revoke(sub: string, cutoff: TokenCutoff): MaybePromise<void>;
}

/** How often every instance loads the cut-offs again (an operator's command announces none). */
export const TOKEN_CUTOFF_RELOAD_MS = 30_000;

const messageOf = (sub: string, cutoff: TokenCutoff) => JSON.stringify([sub, cutoff]);

function parsed(message: string): [string, TokenCutoff] | undefined {
  try {
    const value: unknown = JSON.parse(message);
    if (!Array.isArray(value) || typeof value[0] !== 'string') return undefined;
    const cutoff: unknown = value[1];
    if (cutoff === 'all' || (typeof cutoff === 'number' && Number.isFinite(cutoff))) {
      return [value[0], cutoff];
    }
  } catch {}
  return undefined;
}

/**
 * Keeps the token service's cut-offs current without a database read per
 * request: all of them loaded at start (`load`), each local revocation set
 * at once and announced, each announced one set when heard, and everything
 * loaded again after a reconnection to Redis and every `refreshMs` (a change
 * by a command-line tool, which announces nothing, arrives that way).
 */
export class TokenCutoffs implements TokenRevocation {
  readonly #tokens: TokenService;
  readonly #source: CutoffSource;
  readonly #notices: CutoffNotices | undefined;
  /** Revocations made while a load was in flight: the load may predate them. */
  #during: Map<string, TokenCutoff> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(tokens: TokenService, source: CutoffSource, notices?: CutoffNotices) {
    this.#tokens = tokens;
    this.#source = source;
    this.#notices = notices;
    notices?.listen((message) => {
      const heard = message === undefined ? undefined : parsed(message);
      if (heard) this.#set(...heard);
      else void Promise.resolve(this.load()).catch(() => {});
    });
  }

  /** Loads every stored cut-off; at once on SQLite. */
  load(): MaybePromise<void> {
    const during = new Map<string, TokenCutoff>();
    this.#during = during;
    return whenReady(this.#source(), (stored) => {
      this.#tokens.replaceCutoffs([...stored, ...during]);
      if (this.#during === during) this.#during = undefined;
    });
  }

  revoke(sub: string, cutoff: TokenCutoff): MaybePromise<void> {
    this.#set(sub, cutoff);
    if (this.#notices) return this.#notices.announce(messageOf(sub, cutoff)).then(() => {});
  }

  #set(sub: string, cutoff: TokenCutoff): void {
    this.#during?.set(sub, cutoff);
    this.#tokens.setCutoff(sub, cutoff);
  }

  /** Loads everything again every `refreshMs` until `stop` (src/index.ts). */
  start(refreshMs: number): void {
    this.#timer ??= setInterval(() => {
      void Promise.resolve(this.load()).catch(() => {});
    }, refreshMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
