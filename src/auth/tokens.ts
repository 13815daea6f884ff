import { errors, jwtVerify, SignJWT } from 'jose';
import type { MaybePromise } from '@/rate-limit/store';

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
}

const ALGORITHM = 'HS256';
/** Tolerated clock difference between the token issuer and this server. */
const CLOCK_SKEW_SECONDS = 30;
const MAX_CACHED = 10_000;

const isAudience = (value: unknown): value is Audience =>
  typeof value === 'string' && (AUDIENCES as readonly string[]).includes(value);

/**
 * Verifies bearer JWTs: HS256 pinned (so `none` and RS/HS confusion fail),
 * `exp` required, `aud` one of customer/employee, `sub` a non-empty string.
 * Verified tokens are cached until they expire: the HMAC is the dominant cost
 * of an authenticated request and a token is immutable.
 */
/**
 * Looks a session cookie up (filled by the accounts feature); null when
 * unknown. At once on SQLite, with a promise on a store that answers later.
 */
export type SessionResolver = (sessionId: string) => MaybePromise<VerifiedCaller | null>;

export class TokenService {
  readonly #key: Uint8Array;
  readonly #verified = new Map<string, VerifiedCaller>();

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
    const cached = this.#verified.get(token);
    if (!cached) return undefined;
    if (cached.exp + CLOCK_SKEW_SECONDS > this.now() / 1000) return cached;
    this.#verified.delete(token);
    return undefined;
  }

  async verify(token: string): Promise<VerifiedCaller | null> {
    const cached = this.cached(token);
    if (cached) return cached;
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
      if (this.#verified.size >= MAX_CACHED) this.#verified.clear();
      this.#verified.set(token, caller);
      return caller;
    } catch (error) {
      if (error instanceof errors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  }

  async issue(sub: string, aud: Audience, ttlSeconds: number): Promise<string> {
    const nowSeconds = Math.floor(this.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(sub)
      .setAudience(aud)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + ttlSeconds)
      .sign(this.#key);
  }
}

/** Parses "30s", "15m", "1h", "7d" or a number of seconds. */
export function parseDuration(value: string): number | null {
  const match = /^(\d+)\s*([smhd]?)$/.exec(value.trim());
  if (!match) return null;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  const seconds = Number(match[1]) * unit;
  return seconds > 0 ? seconds : null;
}
