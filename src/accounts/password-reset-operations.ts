import type { AuditContext } from '@/audit/record';
import type { PasswordReset } from '@/db/sqlite/schema';
import { fail } from '@/kernel/errors';
import type { MaybePromise } from '@/kernel/maybe-promise';
import { step } from '@/kernel/steps';
import type { NewMail } from '@/mail/store';
import { markEmailVerified } from './email-link-operations';
import type { Revoked } from './lifecycle-operations';
import { type Notice, queueNotification } from './notifications';
import type { AccountRunner } from './tables';

/**
 * The two writes of a password reset, written once for every store: the
 * link stored (./password-reset.ts sends it), and its use, which sets the
 * password and revokes as a password change does.
 */
export function passwordResetOperations(run: AccountRunner) {
  return {
    /**
     * Stores a new link for its account (the account's earlier links go:
     * only the newest works) and queues its message, with the security-log
     * event, in one transaction. For an address with no usable account
     * (`link` null) the message is queued and taken out again in the same
     * transaction: the answer costs the same work, and nothing is sent.
     * Expired links of every account are deleted on the way.
     */
    startPasswordReset: (
      reset: { link: PasswordReset | null; mail: NewMail },
      audit: AuditContext,
    ): MaybePromise<void> =>
      run(function* (tables) {
        const { link, mail } = reset;
        yield* step(tables.deletePasswordResets(audit.at, link?.userId));
        if (link) yield* step(tables.insertPasswordReset(link));
        const queued = yield* step(tables.queueMail(mail, audit.at));
        if (!link) yield* step(tables.unqueueMail(queued));
        yield* step(
          tables.recordAudit(audit, {
            action: 'password_reset.requested',
            subject: link?.userId ?? null,
            details: { mailed: link !== null },
          }),
        );
      }),

    /**
     * Uses the link `id` (a token's hash): the account gets `passwordHash`,
     * every session ends, every token issued until now is refused and every
     * other link of the account goes. An unverified address is verified
     * (`email.verified`): the link reached it. A link unknown, used or
     * expired: 400 `password_reset.invalid`, nothing written. The holder is
     * told (`notice`), as of any change of password.
     */
    completePasswordReset: (
      id: string,
      passwordHash: string,
      audit: AuditContext,
      notice?: Notice,
    ): MaybePromise<Revoked<void>> =>
      run(function* (tables): Generator<unknown, Revoked<void>, unknown> {
        const userId = yield* step(tables.takePasswordReset(id, audit.at));
        const user = userId === undefined ? undefined : yield* step(tables.lockUser(userId));
        if (!user) throw fail('password_reset.invalid');
        yield* step(tables.updateUser(user.id, { passwordHash }));
        const ended = yield* step(tables.deleteSessionsOf(user.id));
        yield* step(tables.deletePasswordResets(audit.at, user.id));
        yield* step(tables.setTokenCutoff(user.id, audit.at));
        yield* step(
          tables.recordAudit(audit, {
            action: 'password.reset',
            subject: user.id,
            details: { sessionsEnded: ended },
          }),
        );
        // The link was mailed to the account's address, so following it proves
        // control of it. (Only a confirmed change of address changes it, and
        // that verifies the new one: an account still unverified has the
        // address the link went to.)
        if (user.emailUnverified) yield* markEmailVerified(tables, user, audit);
        yield* queueNotification(tables, audit, notice, { kind: 'password-changed', user });
        return { value: undefined, cutoff: user.disabledAt === null ? audit.at : 'all' };
      }),
  };
}

export type PasswordResetOperations = ReturnType<typeof passwordResetOperations>;
