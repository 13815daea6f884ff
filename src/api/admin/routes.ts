import { Elysia } from 'elysia';
import type { AppDeps } from '@/deps';

/** Operator endpoints at /admin (employee only; CONTRACT §9). */
export const adminRoutes = ({ auth }: AppDeps) =>
  new Elysia({ name: 'admin', prefix: '/admin' }).use(auth);
