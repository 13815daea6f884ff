import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { type Announced, listenForEvents } from '@/events/signal';
import { fullPage } from '../content/factory';
import { addProperty, listingsContext, OTHER_OWNER, postProperty } from '../listings/support';
import { readAll } from './support';

/**
 * A long poll wakes only for an announced event it may see, so every write
 * that appends events must announce each one's owner and type, on SQLite
 * (inside its transaction) and on PostgreSQL (once committed; under
 * `TEST_DATABASE=postgres`). An event left out would wait for the look
 * once a second (`FeedWaits`). Each write here is checked against the
 * events it appended, read back from the feed.
 */
const ctx = await listingsContext();
const { employee } = ctx;

const heard: Announced[] = [];
const stop = listenForEvents({ hear: (announced) => heard.push(announced), release: () => {} });
afterEach(() => {
  heard.length = 0;
});
afterAll(stop);

/** Runs the announcement of a write before (a later macrotask). */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** `owner type` of each pair announced since the last call, sorted. */
function announcedPairs(): string[] {
  const pairs = new Set<string>();
  for (const announced of heard.splice(0)) {
    for (const [owner, types] of announced) for (const type of types) pairs.add(`${owner} ${type}`);
  }
  return [...pairs].sort();
}

/** The write, then the announcement (a later macrotask), and the events it appended. */
async function appendedBy(write: () => Promise<unknown>): Promise<string[]> {
  const { cursor } = await readAll(ctx, employee);
  heard.length = 0;
  await write();
  await settle();
  const { events } = await readAll(ctx, employee, cursor);
  expect(events.length).toBeGreaterThan(0);
  return [...new Set(events.map((event) => `${event.ownerId} ${event.type}`))].sort();
}

describe('event announcements', () => {
  test('every write that appends events announces the owner and type of each', async () => {
    const request = (method: string, path: string, body?: unknown) => async () => {
      const res = await ctx.request(method, path, { body, token: employee });
      expect([path, res.status < 300]).toEqual([path, true]);
      return res;
    };
    const id = await postProperty(ctx);
    const property = `/listings/properties/${id}`;
    const writes: [string, () => Promise<unknown>][] = [
      ['create', () => postProperty(ctx)],
      [
        'creates of two owners group-committed together',
        () => Promise.all([postProperty(ctx), postProperty(ctx, { ownerId: OTHER_OWNER })]),
      ],
      ['bulk insert', () => addProperty(ctx, { ownerId: 'owner-bulk' })],
      ['information', request('PUT', `${property}/information`, { isVisitable: true })],
      [
        'neighbourhood',
        request('PUT', '/listings/neighbourhoods/sol', { cityId: 'madrid', name: 'Sol' }),
      ],
      ['unit create', request('POST', `${property}/units`, {})],
      [
        'multi-listing counter',
        request('PUT', `/listings/multi-listing-units/${id}`, { counter: 7 }),
      ],
      [
        'additional data',
        request('POST', '/listings/properties/additional-data', { id, data: { floor: 3 } }),
      ],
      ['archive', request('DELETE', property, { reasonToUnpublish: 'sold' })],
      ['unarchive', request('POST', `${property}/unarchive`)],
      ['owner change', request('PUT', `${property}/owner`, { ownerId: OTHER_OWNER })],
      ['static page', request('PUT', '/content/static-pages/about', fullPage())],
      ['static page delete', request('DELETE', '/content/static-pages/about?language=en')],
    ];
    for (const [name, write] of writes) {
      const appended = await appendedBy(write);
      expect([name, announcedPairs()]).toEqual([name, appended]);
    }
  });

  test('a write that appends nothing announces nothing', async () => {
    const id = await postProperty(ctx);
    await settle();
    heard.length = 0;
    const res = await ctx.request('PUT', `/listings/properties/${id}/convert`, {
      body: { type: 'apartment' },
      token: employee,
    });
    expect(res.status).toBe(204);
    await settle();
    expect(announcedPairs()).toEqual([]);
  });
});
