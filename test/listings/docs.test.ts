import { expect, test } from 'bun:test';
import { createTestApp } from '../support/harness';

interface Operation {
  summary?: string;
  tags?: string[];
  parameters?: { name: string; in: string }[];
  requestBody?: unknown;
  responses?: Record<string, unknown>;
}

const ROUTES: [method: string, path: string, statuses: string[], body: boolean][] = [
  ['get', '/listings/properties', ['200', '400', '401'], false],
  ['post', '/listings/properties', ['201', '400', '401', '422'], true],
  ['post', '/listings/public/properties', ['201', '400', '401', '422'], true],
  ['get', '/listings/properties/{id}', ['200', '401', '404'], false],
  ['delete', '/listings/properties/{id}', ['204', '400', '401', '404', '409'], true],
  ['post', '/listings/properties/{id}/unarchive', ['204', '401', '404', '409'], false],
  ['put', '/listings/properties/{id}/convert', ['204', '400', '401', '404', '409'], true],
  ['put', '/listings/properties/{id}/location', ['204', '400', '401', '404'], true],
  ['put', '/listings/properties/{id}/neighbourhood', ['204', '401', '409'], true],
  ['put', '/listings/properties/{id}/owner', ['204', '401', '403', '404'], true],
  ['put', '/listings/properties/{id}/information', ['204', '401', '404'], true],
  ['get', '/listings/properties/{id}/units', ['200', '400', '401', '404'], false],
  ['post', '/listings/properties/{id}/units', ['201', '401', '404', '409'], true],
  ['get', '/listings/properties/{id}/units/{unitId}', ['200', '401', '404'], false],
  ['patch', '/listings/properties/{id}/units/{unitId}', ['204', '401', '404', '409'], true],
  ['delete', '/listings/properties/{id}/units/{unitId}', ['204', '401', '404', '409'], false],
  ['get', '/listings/neighbourhoods', ['200', '400', '401'], false],
  ['put', '/listings/neighbourhoods/{id}', ['204', '401', '403'], true],
  ['get', '/listings/multi-listing-units', ['200', '400', '401'], false],
  ['get', '/listings/multi-listing-units/{id}', ['200', '400', '401', '404'], false],
  ['put', '/listings/multi-listing-units/{id}', ['204', '400', '401', '404'], true],
  ['post', '/listings/properties/additional-data', ['201', '401', '422'], true],
  ['get', '/listings/properties/{id}/additional-data', ['200', '401', '404'], false],
  ['put', '/listings/properties/{id}/additional-data', ['200', '400', '401', '404'], true],
];

test('/docs/json describes every listings route with its request and responses', async () => {
  const { request } = createTestApp();
  const res = await request<{ paths: Record<string, Record<string, Operation>> }>(
    'GET',
    '/docs/json',
  );
  expect(res.status).toBe(200);
  for (const [method, path, statuses, body] of ROUTES) {
    const operation = res.body.paths[path]?.[method];
    expect([method, path, operation === undefined]).toEqual([method, path, false]);
    expect(operation!.summary).toBeString();
    expect(operation!.tags?.[0]).toStartWith('Listings');
    for (const status of statuses)
      expect([path, status, status in operation!.responses!]).toEqual([path, status, true]);
    expect([path, method, operation!.requestBody !== undefined]).toEqual([path, method, body]);
    for (const name of path.matchAll(/\{(\w+)\}/g)) {
      expect(operation!.parameters?.some((p) => p.in === 'path' && p.name === name[1])).toBe(true);
    }
  }
  const create = JSON.stringify(res.body.paths['/listings/properties']!.post!.requestBody);
  for (const field of ['type', 'location', 'ownerId', 'totalUnits', 'rentableUnits', 'cityId']) {
    expect(create).toContain(`"${field}"`);
  }
  expect(create).toContain('roomShared');
});
