import { type CallOptions, segment, type Transport } from './http.js';
import type {
  AccountChangeBody,
  AccountPage,
  AccountSearchQuery,
  AccountSummary,
  NewUserBody,
  SetPasswordBody,
  UserSummary,
} from './types.js';

const BASE = '/admin/users';
const account = (id: string) => `${BASE}/${segment(id)}`;

/**
 * Account administration for employees (`/admin/users`): create, search,
 * read, change the role or disable, set the password, delete. Every change
 * is audited; the last active employee cannot be demoted, disabled or
 * deleted (409 `ProblemError`).
 */
export function usersApi(http: Transport) {
  const users = {
    /** 201 with the new account; works while sign-up is closed. 409: the email has an account. */
    create: (body: NewUserBody, options?: CallOptions) =>
      http.json<UserSummary>('POST', BASE, { ...options, body }),
    /** One page, newest first: `email` (part of it, any case), `role`, `state`, `cursor`, `limit`. */
    search: (query?: AccountSearchQuery, options?: CallOptions) =>
      http.json<AccountPage>('GET', BASE, { ...options, query }),
    /** Every page from `query.cursor` on (the first page without one), following `nextCursor`. */
    async *pages(
      query: AccountSearchQuery = {},
      options?: CallOptions,
    ): AsyncGenerator<AccountPage> {
      let cursor = query.cursor;
      for (;;) {
        const page = await users.search({ ...query, cursor }, options);
        yield page;
        // A cursor the service gave twice would loop: stop rather than repeat a page.
        if (page.nextCursor === null || page.nextCursor === cursor) return;
        cursor = page.nextCursor;
      }
    },
    /** Every account matching the filters, page after page. */
    async *all(query?: AccountSearchQuery, options?: CallOptions): AsyncGenerator<AccountSummary> {
      for await (const page of users.pages(query, options)) yield* page.users;
    },
    get: (id: string, options?: CallOptions) =>
      http.json<AccountSummary>('GET', account(id), options),
    /**
     * Changes the role or disables / enables the account: a new role or an
     * enabling revokes its bearer tokens issued until now, disabling ends its
     * sessions and refuses every credential until it is enabled.
     */
    update: (id: string, body: AccountChangeBody, options?: CallOptions) =>
      http.json<AccountSummary>('PATCH', account(id), { ...options, body }),
    /** 204: the password is set, every session ends, every bearer token issued until now is revoked. */
    setPassword: (id: string, body: SetPasswordBody, options?: CallOptions) =>
      http.send('POST', `${account(id)}/password`, { ...options, body }),
    /** 204: the account, its sessions, passkeys, webhook endpoints and plan go; its properties stay. */
    delete: (id: string, options?: CallOptions) => http.send('DELETE', account(id), options),
  };
  return users;
}
