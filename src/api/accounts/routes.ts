import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { accountPage } from '@/web/routes';
import { bodyRules } from '../plugins/body-rules';
import { emailRoutes } from './email-routes';
import { lifecycleRoutes } from './lifecycle-routes';
import { passkeyRoutes } from './passkey-routes';
import { passwordResetRoutes } from './password-reset-routes';
import { securityRoutes } from './security-routes';
import { sessionRoutes } from './session-routes';

/** Accounts, sign-in and passkeys at /auth, and the /account page. */
export const accountsRoutes = (deps: ApiDeps) =>
  new Elysia({ name: 'accounts' })
    .use(
      new Elysia({ prefix: '/auth' })
        // Every /auth route answers a bad body with 422 and its field messages.
        .use(bodyRules)
        .guard({ badBody: 'unprocessable' })
        .use(sessionRoutes(deps))
        .use(securityRoutes(deps))
        .use(lifecycleRoutes(deps))
        .use(passwordResetRoutes(deps))
        .use(emailRoutes(deps))
        .use(passkeyRoutes(deps)),
    )
    .use(accountPage({ signUp: deps.config.accounts.signUp, rpId: deps.config.rpId }));
