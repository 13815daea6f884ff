import { Elysia } from 'elysia';
import type { AppDeps } from '@/deps';

/** Accounts, sign-in and passkeys at /auth (CONTRACT §2, §7). */
export const accountsRoutes = ({ auth }: AppDeps) =>
  new Elysia({ name: 'accounts', prefix: '/auth' }).use(auth);
