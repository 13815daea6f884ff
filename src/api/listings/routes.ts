import { Elysia } from 'elysia';
import type { AppDeps } from '@/deps';

/** Listings API, mounted at {base_url} = /listings (CONTRACT §2). */
export const listingsRoutes = ({ auth }: AppDeps) =>
  new Elysia({ name: 'listings', prefix: '/listings' }).use(auth);
