import type { AuditContext } from '@/audit/record';
import type { TokenCutoff } from '@/auth/tokens';
import type { User } from '@/db/sqlite/schema';
import { fail } from '@/kernel/errors';
import type { MaybePromise } from '@/kernel/maybe-promise';
import { step } from '@/kernel/steps';
import { LAST_EMPLOYEE_DETAIL } from './messages';
import { type Notice, queueNotification } from './notifications';
import type { AccountRunner, AccountTables } from './tables';

/**
 * Changes of an account's credentials and state, written once for every
 * store like `operations.ts`: each one commits its rows, the ended sessions
 * and the token cut-off with its security-log event, and answers the
 * cut-off the caller then hands the token service (`TokenRevocation`).
 */

/** What an employee changes of an account (`PATCH /admin/users/{id}`). */
export interface AccountChange {
  role?: User['role'];
  disabled?: boolean;
  /** The address marked verified, as if its link had been followed. */
  emailVerified?: true;
}

/** A committed change and the cut-off its tokens now have (none: they keep working). */
export interface Revoked<T> {
  value: T;
  cutoff: TokenCutoff | undefined;
}

const isActiveEmployee = (user: User) => user.role === 'employee' && user.disabledAt === null;

/**
 * The account locked for a change that may take away an active employee
 * (demote, disable, delete), with every active employee's id. The employees'
 * rows are locked first, in id order, and the account's after: two such
 * changes of two employees then wait for each other, where locking the
 * account first made each hold one row the other needed (a deadlock).
 */
function* lockedForEmployeeChange(tables: AccountTables, id: string) {
  const active = yield* step(tables.lockActiveEmployees());
  const user = yield* lockedUser(tables, id);
  return { user, active };
}

/** 409 when `user` is the last active employee of `active` (read under the employees' lock). */
function assertNotLastEmployee(user: User, active: readonly string[]) {
  if (isActiveEmployee(user) && active.every((id) => id === user.id)) {
    throw fail('account.last_employee', { detail: LAST_EMPLOYEE_DETAIL });
  }
}

function* lockedUser(tables: AccountTables, id: string) {
  const user = yield* step(tables.lockUser(id));
  if (!user) throw fail('account.not_found');
  return user;
}

export function lifecycleOperations(run: AccountRunner) {
  return {
    /**
     * A new password for the user, by themselves: every other session ends
     * and every token issued until now is refused (`keepSession`, the
     * caller's own session, continues). The holder is told (`notice`).
     */
    changePassword: (
      userId: string,
      passwordHash: string,
      keepSession: string | undefined,
      audit: AuditContext,
      notice?: Notice,
    ): MaybePromise<Revoked<void>> =>
      run(function* (tables) {
        const user = yield* lockedUser(tables, userId);
        yield* step(tables.updateUser(userId, { passwordHash }));
        const ended = yield* step(tables.deleteSessionsOf(userId, keepSession));
        yield* step(tables.setTokenCutoff(userId, audit.at));
        yield* step(
          tables.recordAudit(audit, {
            action: 'password.changed',
            subject: userId,
            details: { sessionsEnded: ended },
          }),
        );
        yield* queueNotification(tables, audit, notice, { kind: 'password-changed', user });
        return { value: undefined, cutoff: audit.at };
      }),

    /** "Sign out everywhere": every session ends and every token issued until now is refused. */
    endEverySession: (userId: string, audit: AuditContext): MaybePromise<Revoked<void>> =>
      run(function* (tables) {
        const ended = yield* step(tables.deleteSessionsOf(userId));
        yield* step(tables.setTokenCutoff(userId, audit.at));
        yield* step(
          tables.recordAudit(audit, {
            action: 'sessions.ended_all',
            subject: userId,
            details: { sessionsEnded: ended },
          }),
        );
        return { value: undefined, cutoff: audit.at };
      }),

    /**
     * An employee's change of role or state. A new role refuses the tokens
     * issued before it (they name the old role as their audience); disabling
     * ends every session and refuses every token, even one minted later;
     * enabling again refuses the tokens issued before it. The last active
     * employee cannot be demoted or disabled (409). The holder of an account
     * disabled now is told (`notice`). Marking an unverified address
     * verified (`email.verified`) deletes its verification links and
     * refuses the tokens issued before (they say unverified), as following
     * its link does; an address verified already changes nothing.
     */
    changeAccount: (id: string, change: AccountChange, audit: AuditContext, notice?: Notice) =>
      run(function* (tables): Generator<unknown, Revoked<User>, unknown> {
        const { user, active } =
          change.role !== undefined || change.disabled === true
            ? yield* lockedForEmployeeChange(tables, id)
            : { user: yield* lockedUser(tables, id), active: [] };
        const role = change.role ?? user.role;
        const disable = change.disabled === true && user.disabledAt === null;
        const enable = change.disabled === false && user.disabledAt !== null;
        if (role !== user.role || disable) assertNotLastEmployee(user, active);
        const disabledAt = disable ? new Date(audit.at) : enable ? null : user.disabledAt;
        const verify = change.emailVerified === true && user.emailUnverified;
        const changed = yield* step(
          tables.updateUser(id, {
            role,
            disabledAt,
            ...(verify ? { emailUnverified: false } : {}),
          }),
        );
        let cutoff: TokenCutoff | undefined;
        if (verify) {
          yield* step(tables.deleteEmailLinks(audit.at, { userId: id, purpose: 'verify' }));
          yield* step(
            tables.recordAudit(audit, {
              action: 'email.verified',
              subject: id,
              details: { email: user.email },
            }),
          );
          cutoff = audit.at;
        }
        if (role !== user.role) {
          yield* step(
            tables.recordAudit(audit, {
              action: 'account.role_changed',
              subject: id,
              details: { from: user.role, to: role },
            }),
          );
          cutoff = audit.at;
        }
        if (disable) {
          const ended = yield* step(tables.deleteSessionsOf(id));
          yield* step(
            tables.recordAudit(audit, {
              action: 'account.disabled',
              subject: id,
              details: { sessionsEnded: ended },
            }),
          );
          yield* queueNotification(tables, audit, notice, { kind: 'account-disabled', user });
          cutoff = 'all';
        } else if (enable) {
          yield* step(tables.recordAudit(audit, { action: 'account.enabled', subject: id }));
          cutoff = audit.at;
        } else if (disabledAt !== null) {
          // Still disabled: a new role (or address verified) leaves every token refused.
          cutoff = cutoff !== undefined ? 'all' : undefined;
        }
        if (typeof cutoff === 'number') yield* step(tables.setTokenCutoff(id, cutoff));
        return { value: changed ?? user, cutoff };
      }),

    /**
     * An employee sets the account's password: every session ends and every
     * token issued until now is refused. A disabled account stays disabled
     * (its tokens stay refused). Its passkeys stay. The holder is told (`notice`).
     */
    setAccountPassword: (id: string, passwordHash: string, audit: AuditContext, notice?: Notice) =>
      run(function* (tables): Generator<unknown, Revoked<void>, unknown> {
        const user = yield* lockedUser(tables, id);
        yield* step(tables.updateUser(id, { passwordHash }));
        const ended = yield* step(tables.deleteSessionsOf(id));
        yield* step(tables.setTokenCutoff(id, audit.at));
        yield* step(
          tables.recordAudit(audit, {
            action: 'account.password_set',
            subject: id,
            details: { sessionsEnded: ended },
          }),
        );
        yield* queueNotification(tables, audit, notice, { kind: 'password-changed', user });
        return { value: undefined, cutoff: user.disabledAt === null ? audit.at : 'all' };
      }),

    /**
     * Deletes the account, its sessions, passkeys, webhook endpoints, plan
     * and own rate limit; its properties stay, owned by its id. Every token
     * issued until now is refused, and stays refused (the cut-off outlives
     * the row). The last active employee cannot be deleted (409).
     */
    deleteAccount: (id: string, audit: AuditContext) =>
      run(function* (tables): Generator<unknown, Revoked<User>, unknown> {
        const { user, active } = yield* lockedForEmployeeChange(tables, id);
        assertNotLastEmployee(user, active);
        const { webhooks } = yield* step(tables.deleteUser(id));
        yield* step(tables.setTokenCutoff(id, audit.at));
        yield* step(
          tables.recordAudit(audit, {
            action: 'account.deleted',
            subject: id,
            details: { email: user.email, role: user.role, webhooksDeleted: webhooks },
          }),
        );
        return { value: user, cutoff: audit.at };
      }),
  };
}

export type LifecycleOperations = ReturnType<typeof lifecycleOperations>;
