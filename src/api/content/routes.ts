import { Elysia } from 'elysia';
import type { AppDeps } from '@/deps';

/** Static pages API, mounted at {static_pages_url} = /content (CONTRACT §2). */
export const contentRoutes = ({ auth }: AppDeps) =>
  new Elysia({ name: 'content', prefix: '/content' }).use(auth);
