import { Elysia } from 'elysia';
import type { AppDeps } from '@/deps';

/** Customer API, mounted at {api_url} = /api; paths carry /v1 (CONTRACT §2). */
export const customerRoutes = ({ auth }: AppDeps) =>
  new Elysia({ name: 'customer-api', prefix: '/api/v1' }).use(auth);
