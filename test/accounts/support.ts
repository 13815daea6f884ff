import { expect } from 'bun:test';
import type { PasswordHasher } from '@/accounts/hashing';
import type { PasskeySummary } from '@/accounts/passkeys';
import type { NewUser } from '@/accounts/store';
import { uuidv7 } from '@/db/ids';
import type { AuditAction, AuditEventRow } from '@/db/sqlite/schema';
import type { RequestOptions, TestContext } from '../support/harness';
import {
  type CreateCredentialOverrides,
  type GetAssertionOverrides,
  SoftAuthenticator,
} from '../support/webauthn/soft-authenticator';

export const ORIGIN = 'http://localhost:3000';
export const RP_ID = 'localhost';
export const PASSWORD = 'correct horse battery';
const CHEAP_ARGON2ID = { algorithm: 'argon2id', memoryCost: 1024, timeCost: 1 } as const;

export interface SignedIn {
  user: { id: string; email: string; role: 'customer' | 'employee'; emailVerified: boolean };
  token: string;
  /** `session=<value>` as a browser would send it back. */
  cookie: string;
}

/** A passkey assertion of a credential no account has: its verification fails (401). */
export const UNKNOWN_PASSKEY_ASSERTION = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' },
  clientExtensionResults: {},
};

/**
 * A password hash the test drives: each call waits until released (or not,
 * once `auto` is set), and every call is counted.
 */
export function controllableHasher() {
  const waiting: (() => void)[] = [];
  const state = { calls: 0, auto: false };
  const gate = async () => {
    state.calls++;
    if (!state.auto) await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const hasher: PasswordHasher = {
    async hash(password) {
      await gate();
      return `stub:${password}`;
    },
    async verify(password, hash) {
      await gate();
      return hash === `stub:${password}`;
    },
  };
  return {
    hasher,
    state,
    get waiting() {
      return waiting.length;
    },
    release: () => waiting.shift()?.(),
  };
}

/**
 * Lets the requests already sent run until they wait on something (no
 * timers involved), and on until `reached` holds: on PostgreSQL a request
 * waits on the database's answers before it reaches the hasher.
 */
export async function settle(reached: () => boolean = () => true, rounds = 20) {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  // Database answers arrive as I/O, which a chain of immediates never lets in.
  for (let i = 0; i < 5000 && !reached(); i++) await Bun.sleep(1);
}

export const cookieOf = (setCookie: string | null) => setCookie?.split(';')[0] ?? '';

/**
 * The per-address bounds on sign-ups and passkey options, the hashing
 * limits and the hashing queue are lifted here (every request of a test
 * file comes from one address, some tests send many at once); the tests of
 * those bounds set them.
 */
export const UNBOUNDED = {
  SIGN_UP_PER_IP_PER_HOUR: '1000000',
  PASSKEY_OPTIONS_PER_IP_PER_MINUTE: '1000000',
  PASSWORD_HASHES_PER_ACCOUNT_PER_MINUTE: '1000000',
  PASSWORD_HASHES_PER_IP_PER_MINUTE: '1000000',
  HASH_QUEUE: '1000',
};

/** Account rows written and read straight in the database of the store under test. */
export interface AccountRows {
  insertUser(values: NewUser): Promise<void>;
  /** Every stored user of this (normalized) email. */
  usersOf(email: string): Promise<unknown[]>;
  /** The security-log events the store holds, oldest first. */
  auditRows(action?: AuditAction): Promise<AuditEventRow[]>;
}

/**
 * A test app (test/accounts/stores.ts builds it on the store under test)
 * with account helpers; `rows` reads and writes the store's database.
 */
export function accountHelpers(ctx: TestContext, rows: AccountRows) {
  const store = ctx.deps.stores.accounts;
  let counter = 0;

  const newAuthenticator = () => new SoftAuthenticator({ origin: ORIGIN, rpId: RP_ID });

  /**
   * An account inserted directly with a low-cost argon2id hash: verifying it
   * takes under a millisecond instead of ~200 ms for the production cost.
   */
  async function createAccount(
    email = `user${++counter}@example.com`,
    role: 'customer' | 'employee' = 'customer',
  ): Promise<SignedIn['user']> {
    const passwordHash = await Bun.password.hash(PASSWORD, CHEAP_ARGON2ID);
    const id = uuidv7();
    await rows.insertUser({ id, email, passwordHash, role });
    return { id, email, role, emailVerified: true };
  }

  /** Sign-up through the API (production hash cost); the account as stored. */
  async function signUp(email = `user${++counter}@example.com`, password = PASSWORD) {
    const res = await ctx.request('POST', '/auth/sign-up', { body: { email, password } });
    expect(res.status).toBe(202);
    const user = await store.findUserByEmail(email);
    if (!user) throw new Error(`sign-up created no account for ${email}`);
    return {
      id: user.id,
      email: user.email,
      role: user.role,
      emailVerified: !user.emailUnverified,
    };
  }

  async function signIn(email: string, password = PASSWORD): Promise<SignedIn> {
    const res = await ctx.request<{ accessToken: string; user: SignedIn['user'] }>(
      'POST',
      '/auth/sign-in',
      { body: { email, password } },
    );
    expect(res.status).toBe(200);
    return {
      user: res.body.user,
      token: res.body.accessToken,
      cookie: cookieOf(res.headers.get('set-cookie')),
    };
  }

  /** A new customer account, signed in by password. */
  async function newUser(): Promise<SignedIn> {
    const user = await createAccount();
    return signIn(user.email);
  }

  /** A request the way the account page sends it: session cookie and our Origin. */
  const browser = <T = unknown>(
    session: SignedIn,
    method: string,
    path: string,
    options: RequestOptions = {},
  ) =>
    ctx.request<T>(method, path, {
      ...options,
      headers: { cookie: session.cookie, origin: ORIGIN, ...options.headers },
    });

  async function registrationOptions(session: SignedIn) {
    const res = await browser<Parameters<SoftAuthenticator['createCredential']>[0]>(
      session,
      'POST',
      '/auth/passkey/register/options',
    );
    expect(res.status).toBe(200);
    return res.body;
  }

  /** Runs both registration steps; returns the raw answer of the second. */
  async function register(
    session: SignedIn,
    authenticator: SoftAuthenticator,
    overrides: CreateCredentialOverrides = {},
    name?: string,
  ) {
    const options = await registrationOptions(session);
    const response = await authenticator.createCredential(options, overrides);
    return browser<PasskeySummary>(session, 'POST', '/auth/passkey/register', {
      body: { response, ...(name === undefined ? {} : { name }) },
    });
  }

  /** A signed-in user with one registered passkey on a fresh authenticator. */
  async function userWithPasskey() {
    const session = await newUser();
    const authenticator = newAuthenticator();
    const registered = await register(session, authenticator);
    expect(registered.status).toBe(201);
    return { session, authenticator, passkey: registered.body };
  }

  async function authenticationOptions(email?: string) {
    const res = await ctx.request<Parameters<SoftAuthenticator['getAssertion']>[0]>(
      'POST',
      '/auth/passkey/authenticate/options',
      { body: email === undefined ? {} : { email } },
    );
    expect(res.status).toBe(200);
    return res.body;
  }

  /** Runs both authentication steps (usernameless unless an email is given). */
  async function authenticate(
    authenticator: SoftAuthenticator,
    overrides: GetAssertionOverrides = {},
    email?: string,
  ) {
    const options = await authenticationOptions(email);
    const response = await authenticator.getAssertion(options, overrides);
    const res = await ctx.request<{ accessToken: string; user: SignedIn['user'] }>(
      'POST',
      '/auth/passkey/authenticate',
      { body: { response } },
    );
    return Object.assign(res, { response });
  }

  return {
    ...ctx,
    /** Writes a user straight into the store's database (no event, no audit entry). */
    insertUser: rows.insertUser,
    /** The account of this email on the store under test. */
    findUser: async (email: string) => store.findUserByEmail(email),
    /** Every stored user of this email (normalized). */
    usersOf: rows.usersOf,
    /** The security-log events on the store under test, oldest first. */
    auditRows: (action?: AuditAction) => rows.auditRows(action),
    /**
     * Runs `action` and returns the security-log events it wrote on the
     * store under test, with the work its requests deferred after answering.
     */
    async eventsWrittenBy(action: () => Promise<unknown>) {
      const before = (await rows.auditRows()).at(-1)?.id ?? 0;
      await action();
      await ctx.deps.deferred.drain();
      return (await rows.auditRows()).filter((row) => row.id > before);
    },
    newAuthenticator,
    createAccount,
    signUp,
    signIn,
    newUser,
    browser,
    registrationOptions,
    register,
    userWithPasskey,
    authenticationOptions,
    authenticate,
  };
}
