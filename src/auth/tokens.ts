import { errors, jwtVerify, SignJWT } from 'jose';
import type { MaybePromise } from '@/kernel/maybe-promise';

export const AUDIENCES = ['customer', 'employee'] as const;
export type Audience = (typeof AUDIENCES)[number];

/** Who is calling: an account and its audience. */
export interface Caller {
  /** User id; for customers also the `ownerId` of the properties they act on. */
  sub: string;
  aud: Audience;
}

/** A caller as a credential proved it: how, and until when. */
export interface VerifiedCaller extends Caller {
  /** How the caller proved it: a bearer token or the browser session cookie. */
  via: 'bearer' | 'session';
  /** Seconds since the epoch when the credential stops being valid. */
  exp: number;
  /**
   * An account whose address is not verified yet (docs/accounts.md#email-verification):
   * only its own account routes answer it.
   */
  unverified?: true;
}

const ALGORITHM = 'HS256';
/**
 * The claim of a token issued to an account not verified yet. Verifying
 * sets the account's token cut-off, so such a token never outlives it.
 */
const UNVERIFIED_CLAIM = 'unv';
/** Tolerated clock difference between the token issuer and this server. */
const CLOCK_SKEW_SECONDS = 30;
const MAX_CACHED = 10_000;

const isAudience = (value: unknown): value is Audience =>
  typeof value === 'string' && (AUDIENCES as readonly string[]).includes(value);

/**
 * Verifies bearer JWTs: HS256 pinned (so `none` and RS/HS confusion fail),
 * `exp` required, `aud` one of customer/employee, `sub` a non-empty string.
 * Verified tokens are cached until they expire: the HMAC is the dominant cost
 * of an authenticated request and a token is immutable. Its subject's
 * cut-off is checked on every use, cached or not, so a revoked token is
 * refused at once.
 */
/**
 * Looks a session cookie up (filled by the accounts feature); null when
 * unknown. At once on SQLite, with a promise on a store that answers later.
 */
export type SessionResolver = (sessionId: string) => MaybePromise<VerifiedCaller | null>;

/** A verified token as remembered: its caller and when it was issued (`iat`, seconds). */
interface VerifiedToken {
  caller: VerifiedCaller;
  issuedAt: number | undefined;
}

/**
 * A subject's token cut-off: epoch milliseconds (tokens issued in that
 * second or before are refused) or 'all' (every token, a disabled account).
 */
export type TokenCutoff = number | 'all';

export class TokenService {
  readonly #key: Uint8Array;
  readonly #verified = new Map<string, VerifiedToken>();
  /**
   * Cut-offs by subject, in seconds (Infinity: every token), only for
   * subjects that have one: a token of any other subject is checked by
   * one size test, so revocation costs the hot path nothing.
   */
  #cutoffs = new Map<string, number>();

  constructor(
    secret: string,
    private readonly now: () => number = Date.now,
  ) {
    this.#key = new TextEncoder().encode(secret);
  }

  /**
   * The caller of a token verified before and not yet expired, without a
   * promise (the fast lane's reads); undefined when it must be verified.
   */
  cached(token: string): VerifiedCaller | undefined {
    return this.#known(token) ?? undefined;
  }

  /** A remembered token: its caller, null when revoked, undefined when unknown or expired. */
  #known(token: string): VerifiedCaller | null | undefined {
    const known = this.#verified.get(token);
    if (!known) return undefined;
    if (known.caller.exp + CLOCK_SKEW_SECONDS <= this.now() / 1000) {
      this.#verified.delete(token);
      return undefined;
    }
    return this.#cutoffs.size !== 0 && this.#revoked(known) ? null : known.caller;
  }

  /** Issued at or before its subject's cut-off (a token without `iat`: whenever there is one). */
  #revoked({ caller, issuedAt }: VerifiedToken): boolean {
    const cutoff = this.#cutoffs.get(caller.sub);
    return cutoff !== undefined && (issuedAt === undefined || issuedAt <= cutoff);
  }

  /** Sets (or, with undefined, forgets) one subject's cut-off. */
  setCutoff(sub: string, cutoff: TokenCutoff | undefined): void {
    if (cutoff === undefined) this.#cutoffs.delete(sub);
    else this.#cutoffs.set(sub, secondsOf(cutoff));
  }

  /** Replaces every cut-off (loaded from the database). */
  replaceCutoffs(cutoffs: Iterable<readonly [string, TokenCutoff]>): void {
    const next = new Map<string, number>();
    for (const [sub, cutoff] of cutoffs) next.set(sub, secondsOf(cutoff));
    this.#cutoffs = next;
  }

  async verify(token: string): Promise<VerifiedCaller | null> {
    const known = this.#known(token);
    if (known !== undefined) return known;
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: [ALGORITHM],
        requiredClaims: ['exp', 'sub', 'aud'],
        clockTolerance: CLOCK_SKEW_SECONDS,
        currentDate: new Date(this.now()),
      });
      const aud = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
      if (!isAudience(aud) || typeof payload.sub !== 'string' || payload.sub.length === 0) {
        return null;
      }
      const caller: VerifiedCaller = { sub: payload.sub, aud, via: 'bearer', exp: payload.exp! };
      if (payload[UNVERIFIED_CLAIM] === true) caller.unverified = true;
      // Remembered even when revoked: the next request is refused without the HMAC.
      const verified = { caller, issuedAt: payload.iat };
      if (this.#verified.size >= MAX_CACHED) this.#verified.clear();
      this.#verified.set(token, verified);
      return this.#cutoffs.size !== 0 && this.#revoked(verified) ? null : caller;
    } catch (error) {
      if (error instanceof errors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  }

  /**
   * A token for `sub`. `iat` has whole seconds, and a cut-off refuses the
   * tokens of its own second: a token issued in that second (a sign-in
   * right after a password change) says the next one, within the clock
   * skew every verifier tolerates.
   */
  async issue(
    sub: string,
    aud: Audience,
    ttlSeconds: number,
    { unverified = false }: { unverified?: boolean } = {},
  ): Promise<string> {
    const nowSeconds = Math.floor(this.now() / 1000);
    const cutoff = this.#cutoffs.get(sub);
    const issuedAt =
      cutoff !== undefined && Number.isFinite(cutoff)
        ? Math.max(nowSeconds, cutoff + 1)
        : nowSeconds;
    return new SignJWT(unverified ? { [UNVERIFIED_CLAIM]: true } : {})
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(sub)
      .setAudience(aud)
      .setIssuedAt(issuedAt)
      .setExpirationTime(nowSeconds + ttlSeconds)
      .sign(this.#key);
  }
}

const secondsOf = (cutoff: TokenCutoff) =>
  cutoff === 'all' ? Number.POSITIVE_INFINITY : Math.floor(cutoff / 1000);

/** Parses "30s", "15m", "1h", "7d" or a number of seconds. */
export function parseDuration(value: string): number | null {
  const match = /^(\d+)\s*([smhd]?)$/.exec(value.trim());
  if (!match) return null;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  const seconds = Number(match[1]) * unit;
  return seconds > 0 ? seconds : null;
}
