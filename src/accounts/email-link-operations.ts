import type { AuditContext, AuditEntry } from '@/audit/record';
import type { EmailLink } from '@/db/sqlite/schema';
import { fail } from '@/kernel/errors';
import type { MaybePromise } from '@/kernel/maybe-promise';
import { step } from '@/kernel/steps';
import type { NewMail } from '@/mail/store';
import type { Revoked } from './lifecycle-operations';
import type { AccountRunner, AccountTables } from './tables';

/** A link to store and the message that carries it. */
export interface EmailLinkMail {
  link: EmailLink;
  mail: NewMail;
}

/** What following a link did: the account and its address now, verified. */
export interface EmailConfirmation {
  userId: string;
  email: string;
  purpose: EmailLink['purpose'];
}

/**
 * Stores a link (the account's earlier link of the same purpose goes: only
 * the newest works), queues its message and records `entry`, in the
 * transaction of the caller. Expired links of every account go on the way.
 */
export function* storeEmailLink(
  tables: AccountTables,
  { link, mail }: EmailLinkMail,
  audit: AuditContext,
  entry: AuditEntry,
) {
  yield* step(tables.deleteEmailLinks(audit.at, { userId: link.userId, purpose: link.purpose }));
  yield* step(tables.insertEmailLink(link));
  yield* step(tables.queueMail(mail, audit.at));
  yield* step(tables.recordAudit(audit, entry));
}

/**
 * Marks the account's address verified (`email.verified`) and deletes its
 * verification links, in the transaction of the caller: its link was
 * followed, or another link mailed to the address (a password reset).
 */
export function* markEmailVerified(
  tables: AccountTables,
  user: { id: string; email: string },
  audit: AuditContext,
) {
  yield* step(tables.updateUser(user.id, { emailUnverified: false }));
  yield* step(tables.deleteEmailLinks(audit.at, { userId: user.id, purpose: 'verify' }));
  yield* step(
    tables.recordAudit(audit, {
      action: 'email.verified',
      subject: user.id,
      details: { email: user.email },
    }),
  );
}

/**
 * The writes of email verification and change of address, written once for
 * every store (./email-links.ts sends the links).
 */
export function emailLinkOperations(run: AccountRunner) {
  return {
    /** Stores a link and queues its message with `entry`, in one transaction. */
    sendEmailLink: (sent: EmailLinkMail, audit: AuditContext, entry: AuditEntry) =>
      run((tables) => storeEmailLink(tables, sent, audit, entry)),

    /**
     * Follows the link `id` (a token's hash). `verify`: the account's
     * address is verified (`email.verified`). `change`: the account takes
     * the link's address, verified, and `notice(old, new)` is queued to the
     * old one (`email.changed`); 409 `account.email_taken` when another
     * account took the address meanwhile. The account's other links of that
     * purpose go (every link, on a change). An account that was not
     * verified gets a token cut-off: its tokens, which carried that, end.
     * A link unknown, used, expired, or for an address the account no
     * longer has: 400 `email_link.invalid`, nothing written.
     */
    confirmEmailLink: (
      id: string,
      audit: AuditContext,
      notice: (from: string, to: string) => NewMail,
    ): MaybePromise<Revoked<EmailConfirmation>> =>
      run(function* (tables): Generator<unknown, Revoked<EmailConfirmation>, unknown> {
        const link = yield* step(tables.takeEmailLink(id, audit.at));
        const user = link === undefined ? undefined : yield* step(tables.lockUser(link.userId));
        if (!link || !user) throw fail('email_link.invalid');
        if (link.purpose === 'verify') {
          if (link.email !== user.email) throw fail('email_link.invalid');
          yield* markEmailVerified(tables, user, audit);
        } else {
          const holder = yield* step(tables.userIdOfEmail(link.email));
          if (holder !== undefined && holder !== user.id) throw fail('account.email_taken');
          const changed = yield* step(
            tables.updateUser(user.id, { email: link.email, emailUnverified: false }),
          );
          if (!changed) throw fail('account.email_taken');
          yield* step(tables.deleteEmailLinks(audit.at, { userId: user.id }));
          yield* step(tables.queueMail(notice(user.email, link.email), audit.at));
          yield* step(
            tables.recordAudit(audit, {
              action: 'email.changed',
              subject: user.id,
              details: { from: user.email, to: link.email },
            }),
          );
        }
        if (user.emailUnverified) yield* step(tables.setTokenCutoff(user.id, audit.at));
        return {
          value: { userId: user.id, email: link.email, purpose: link.purpose },
          cutoff: user.emailUnverified ? audit.at : undefined,
        };
      }),
  };
}

export type EmailLinkOperations = ReturnType<typeof emailLinkOperations>;
