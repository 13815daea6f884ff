import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { accountPage } from '@/web/routes';
import { passkeyRoutes } from './passkey-routes';
import { sessionRoutes } from './session-routes';

/** Accounts, sign-in and passkeys at /auth, and the /account page. */
export const accountsRoutes = (deps: ApiDeps) =>
  new Elysia({ name: 'accounts' })
    .use(new Elysia({ prefix: '/auth' }).use(sessionRoutes(deps)).use(passkeyRoutes(deps)))
    .use(accountPage({ signUp: deps.config.accounts.signUp }));
