import { Elysia } from 'elysia';
import type { AppDeps } from '@/deps';
import { accountPage } from '@/web/routes';
import { passkeyRoutes } from './passkey-routes';
import { sessionRoutes } from './session-routes';

/** Accounts, sign-in and passkeys at /auth, and the /account page. */
export const accountsRoutes = (deps: AppDeps) =>
  new Elysia({ name: 'accounts' })
    .use(new Elysia({ prefix: '/auth' }).use(sessionRoutes(deps)).use(passkeyRoutes(deps)))
    .use(accountPage());
