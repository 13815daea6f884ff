import { type AuditContext, type AuditEntry, actingAs } from '@/audit/record';
import type { Passkey, User } from '@/db/sqlite/schema';
import { fail } from '@/kernel/errors';
import type { MaybePromise } from '@/kernel/maybe-promise';
import { step } from '@/kernel/steps';
import { USED_CHALLENGES_MAX, USED_CHALLENGES_PER_ACCOUNT } from './challenges';
import { deviceName, deviceOf, sameDevice } from './devices';
import { type EmailLinkMail, storeEmailLink } from './email-link-operations';
import { type Notice, notifies, queueNotification } from './notifications';
import { defaultPasskeyName } from './provider-names';
import { publicSessionIdOf } from './session-ids';
import type { AccountRunner, NewChallenge, NewPasskey, NewSession, NewUser } from './tables';

/**
 * The accounts domain's writes, written once for every store: each
 * operation yields its queries (`src/kernel/steps.ts`) to the store's
 * `AccountTables`, inside one transaction, at once on SQLite and awaited on
 * PostgreSQL. The security-log event of each is written in that transaction.
 */

/** Live sessions an account keeps unless told otherwise (`SESSIONS_PER_ACCOUNT`). */
export const SESSIONS_PER_ACCOUNT_DEFAULT = 50;

/** How an account came to be, for its security-log event (command-line tools log none). */
export interface AccountCreation {
  action: 'sign_up' | 'account.created';
  audit: AuditContext;
  /**
   * A sign-up under SIGN_UP=verify: the link that verifies the address and
   * its message, stored with the account (`userId` filled in).
   */
  verification?: EmailLinkMail;
}

/** A passkey to store; named by its provider when `name` is not given. */
export type PasskeyRegistration = Omit<NewPasskey, 'name'> & { name: string | undefined };

export function accountOperations(run: AccountRunner) {
  return {
    /** The new user, or undefined (nothing stored, nothing logged) when the email is taken. */
    createUser: (values: NewUser, creation?: AccountCreation): MaybePromise<User | undefined> =>
      run(function* (tables) {
        const user = yield* step(tables.insertUser(values));
        if (user && creation) {
          yield* step(
            tables.recordAudit(creation.audit, {
              action: creation.action,
              subject: user.id,
              details: { role: user.role },
            }),
          );
          const { verification } = creation;
          if (verification) {
            const sent = { ...verification, link: { ...verification.link, userId: user.id } };
            yield* storeEmailLink(tables, sent, creation.audit, {
              action: 'email_verification.sent',
              subject: user.id,
              details: { email: user.email },
            });
          }
        }
        return user;
      }),

    /**
     * A new session with its sign-in event; expired sessions are dropped on
     * the way, and the account's oldest live ones past `perAccount` with the
     * new one (the event counts them), so sign-ins cannot store rows without end.
     * When none of the account's live sessions was started from the same
     * device (./devices.ts), the holder is told (`notice`).
     */
    startSession: (
      session: NewSession,
      audit: AuditContext,
      entry: AuditEntry,
      options: { perAccount?: number; tell?: { notice: Notice; email: string } } = {},
    ) =>
      run(function* (tables) {
        const { perAccount = SESSIONS_PER_ACCOUNT_DEFAULT, tell } = options;
        const now = session.createdAt.getTime();
        yield* step(tables.deleteExpiredSessions(now));
        // Two sign-ins at once would each count the other's session as not there yet.
        yield* step(tables.lockSessionsOf(session.userId));
        const device = deviceOf(session.ip, session.userAgent);
        const newDevice =
          tell !== undefined &&
          notifies(tell.notice, 'new-device') &&
          !(yield* step(tables.liveSessions(session.userId, now))).some((live) =>
            sameDevice(deviceOf(live.ip, live.userAgent), device),
          );
        const ended = yield* step(tables.trimSessions(session.userId, perAccount - 1));
        yield* step(tables.insertSession(session));
        const details = ended > 0 ? { ...entry.details, sessionsEnded: ended } : entry.details;
        yield* step(tables.recordAudit(audit, { ...entry, details }));
        if (newDevice) {
          yield* queueNotification(tables, audit, tell.notice, {
            kind: 'new-device',
            user: { id: session.userId, email: tell.email },
            data: { device: deviceName(device), address: session.ip ?? 'unknown' },
          });
        }
      }),

    /** Sign-out: ends the session of this hash (nothing when it is gone already). */
    endSession: (id: string, audit: AuditContext) =>
      run(function* (tables) {
        const ended = yield* step(tables.deleteSession(id));
        if (!ended) return;
        yield* step(
          tables.recordAudit(actingAs(audit, ended.userId), {
            action: 'sign_out',
            subject: ended.userId,
            target: publicSessionIdOf(ended.id),
          }),
        );
      }),

    /** One of the user's live sessions by its public id; another's, expired or unknown: 404. */
    revokeSession: (userId: string, publicId: string, audit: AuditContext) =>
      run(function* (tables) {
        const live = yield* step(tables.liveSessions(userId, audit.at));
        const row = live.find((session) => publicSessionIdOf(session.id) === publicId);
        // Revoked meanwhile by another request (its delete committed first): not found either.
        const ended = row && (yield* step(tables.deleteSession(row.id)));
        if (!ended) throw fail('session.not_found');
        yield* step(
          tables.recordAudit(audit, {
            action: 'session.revoked',
            subject: userId,
            target: publicId,
          }),
        );
      }),

    /**
     * Stores a verified registration; a credential id stored already is the
     * 409. The holder is told (`notice`).
     */
    addPasskey: (registration: PasskeyRegistration, audit: AuditContext, notice?: Notice) =>
      run(function* (tables): Generator<unknown, Passkey, unknown> {
        // One registration of a user at a time, so two at once get distinct default names.
        yield* step(tables.lockPasskeysOf(registration.userId));
        const taken = yield* step(tables.passkeyNames(registration.userId));
        const name = registration.name ?? defaultPasskeyName(registration.provider, taken);
        // The unique credential id decides, even between two registrations at once.
        const passkey = yield* step(tables.insertPasskey({ ...registration, name }));
        if (!passkey) throw fail('passkey.already_registered');
        yield* step(tables.recordAudit(audit, passkeyEvent('passkey.added', passkey)));
        const user = notifies(notice, 'passkey-added')
          ? yield* step(tables.lockUser(passkey.userId))
          : undefined;
        if (user) {
          yield* queueNotification(tables, audit, notice, {
            kind: 'passkey-added',
            user,
            data: { name: passkey.name },
          });
        }
        return passkey;
      }),

    /** Renames the owner's passkey; undefined when it is not theirs (or missing). */
    renamePasskey: (userId: string, change: { id: string; name: string }, audit: AuditContext) =>
      run(function* (tables) {
        const renamed = yield* step(tables.renamePasskey(userId, change.id, change.name));
        if (renamed)
          yield* step(tables.recordAudit(audit, passkeyEvent('passkey.renamed', renamed)));
        return renamed;
      }),

    deletePasskey: (userId: string, id: string, audit: AuditContext) =>
      run(function* (tables) {
        const deleted = yield* step(tables.deletePasskey(userId, id));
        if (!deleted) return false;
        yield* step(tables.recordAudit(audit, passkeyEvent('passkey.deleted', deleted)));
        return true;
      }),

    /**
     * Stores the outcome of a verified assertion. Compare-and-set on the
     * counter: of two assertions verified against the same stored counter
     * only one wins.
     */
    recordPasskeyUse: (
      passkey: Pick<Passkey, 'id' | 'counter'>,
      use: Pick<Passkey, 'counter' | 'backedUp' | 'deviceType'>,
      now: number,
    ) =>
      run(function* (tables) {
        return yield* step(
          tables.recordPasskeyUse(passkey.id, passkey.counter, {
            ...use,
            lastUsedAt: new Date(now),
          }),
        );
      }),

    /**
     * Marks the challenge of a verified ceremony used; false when it already
     * was (a replay). The used set keeps a challenge until it expires, after
     * which its own expiry refuses it, so the set holds at most the
     * challenges of the last 5 minutes: at most `USED_CHALLENGES_PER_ACCOUNT`
     * of one account (429 past it, until its soonest one expires) and
     * `USED_CHALLENGES_MAX` in all (503).
     */
    markChallengeUsed: (challenge: NewChallenge & { userId: string }, now: number) =>
      run(function* (tables) {
        yield* step(tables.deleteExpiredChallenges(now));
        const own = yield* step(
          tables.usedChallengesOf(challenge.userId, USED_CHALLENGES_PER_ACCOUNT),
        );
        if (own.length >= USED_CHALLENGES_PER_ACCOUNT) {
          const retryAfterMs = own[0]!.getTime() - now;
          throw fail('auth.too_many_requests', {
            retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
          });
        }
        const used = yield* step(tables.usedChallenges());
        if (used >= USED_CHALLENGES_MAX) throw fail('service.busy', { retryAfterSeconds: 60 });
        return yield* step(tables.insertChallenge(challenge));
      }),

    /** A security-log event on its own (a failed sign-in). */
    recordSecurityEvent: (audit: AuditContext, entry: AuditEntry) =>
      run(function* (tables) {
        yield* step(tables.recordAudit(audit, entry));
      }),
  };
}

export type AccountOperations = ReturnType<typeof accountOperations>;

/** A passkey's event in its owner's security log, named as it is now. */
const passkeyEvent = (
  action: 'passkey.added' | 'passkey.renamed' | 'passkey.deleted',
  passkey: Pick<Passkey, 'id' | 'userId' | 'name'>,
): AuditEntry => ({
  action,
  subject: passkey.userId,
  target: passkey.id,
  details: { name: passkey.name },
});
