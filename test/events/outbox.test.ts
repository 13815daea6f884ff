import { describe, expect, test } from 'bun:test';
import { EventPage } from '@/events/schemas';
import { insertPropertiesBulk } from '@/listings/properties/sqlite-bulk';
import { fullPage } from '../content/factory';
import {
  countRows,
  listingsContext,
  OTHER_OWNER,
  OWNER,
  postProperty,
  propertyBody,
} from '../listings/support';
import { createTestApp } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';
import { countStatements } from '../support/statements';
import { readAll, readFeed } from './support';

const ctx = await listingsContext();
const { employee } = ctx;

/** The newest event, after checking the page against the route's own schema. */
async function latest() {
  const res = await readFeed(ctx, employee, '?limit=500');
  const page = EventPage.parse(res.body);
  return page.data.at(-1)!;
}

async function get(path: string) {
  const res = await ctx.request('GET', path, { token: employee });
  expect(res.status).toBe(200);
  return res.body;
}

describe('the outbox', () => {
  describe('happy', () => {
    test('every listings and page write appends one event: the resource as GET answers it after the write, or, for a large one, what names it', async () => {
      const id = await postProperty(ctx);
      const property = `/listings/properties/${id}`;
      let event = await latest();
      expect(event).toMatchObject({
        type: 'property.created',
        resource: { kind: 'property', id },
        ownerId: 'owner-1',
      });
      expect(event.data).toEqual((await get(property)) as Record<string, unknown>);
      expect(event.occurredAt).toBe(new Date(ctx.clock()).toISOString());

      const propertyWrites: [string, string, string, unknown][] = [
        [
          'PUT',
          '/location',
          'property.location_changed',
          {
            addressLine1: 'Gran Via 1',
            city: 'Madrid',
            cityId: 'madrid',
            postalCode: '28013',
            latitude: 40.42,
            longitude: -3.7,
          },
        ],
        [
          'PUT',
          '/information',
          'property.information_changed',
          { isVisitable: true, yearOfConstruction: 1990 },
        ],
        ['PUT', '/convert', 'property.converted', { type: 'studio' }],
        ['DELETE', '', 'property.archived', { reasonToUnpublish: 'sold' }],
        ['POST', '/unarchive', 'property.unarchived', undefined],
        ['PUT', '/owner', 'property.owner_changed', { ownerId: OTHER_OWNER }],
      ];
      await ctx.request('PUT', '/listings/neighbourhoods/sol', {
        body: { cityId: 'madrid', name: 'Sol' },
        token: employee,
      });
      event = await latest();
      expect(event).toMatchObject({
        type: 'neighbourhood.updated',
        resource: { kind: 'neighbourhood', id: 'sol' },
        ownerId: null,
        data: { id: 'sol', cityId: 'madrid', name: 'Sol' },
      });
      propertyWrites.splice(2, 0, [
        'PUT',
        '/neighbourhood',
        'property.neighbourhood_changed',
        { neighbourhoodId: 'sol' },
      ]);
      for (const [method, path, type, body] of propertyWrites) {
        const res = await ctx.request(method, `${property}${path}`, { body, token: employee });
        expect([type, res.status]).toEqual([type, 204]);
        event = await latest();
        expect(event.type as string).toBe(type);
        expect(event.resource).toEqual({ kind: 'property', id });
        expect(event.data).toEqual((await get(property)) as Record<string, unknown>);
      }
      expect(event.ownerId).toBe(OTHER_OWNER);

      const created = await ctx.request('POST', `${property}/units`, { body: {}, token: employee });
      const unitPath = created.headers.get('location')!;
      const unitId = unitPath.split('/').pop()!;
      for (const [method, body, type] of [
        [null, null, 'unit.created'],
        [
          'PATCH',
          {
            published: true,
            features: [{ applicability: 'unit', category: 'rooms', name: 'bedrooms', value: '2' }],
          },
          'unit.updated',
        ],
        ['DELETE', undefined, 'unit.deleted'],
      ] as const) {
        if (method) {
          expect((await ctx.request(method, unitPath, { body, token: employee })).status).toBe(204);
        }
        event = await latest();
        expect(event).toMatchObject({
          type,
          resource: { kind: 'unit', id: unitId },
          ownerId: OTHER_OWNER,
        });
        // The unit without its features, which a consumer reads with the GET.
        const { features, ...unit } = (await get(unitPath)) as Record<string, unknown>;
        expect(features).toHaveLength(type === 'unit.created' ? 0 : 1);
        expect(event.data).toEqual(unit);
      }

      await ctx.request('PUT', `/listings/multi-listing-units/${id}`, {
        body: { counter: 7 },
        token: employee,
      });
      event = await latest();
      expect(event).toMatchObject({
        type: 'multi_listing_counter.updated',
        resource: { kind: 'multi_listing_counter', id },
        data: await get(`/listings/multi-listing-units/${id}`),
      });

      await ctx.request('POST', '/listings/properties/additional-data', {
        body: { id, data: { floor: 3 } },
        token: employee,
      });
      event = await latest();
      expect(event).toMatchObject({
        type: 'additional_data.updated',
        resource: { kind: 'additional_data', id },
      });
      expect(event.data).toEqual({ id });
      await ctx.request('PUT', `${property}/additional-data`, {
        body: { data: { floor: 4 } },
        token: employee,
      });
      event = await latest();
      expect(event).toMatchObject({ type: 'additional_data.updated', data: { id } });
      expect(await get(`${property}/additional-data`)).toEqual({ id, data: { floor: 4 } });

      const page = await ctx.request('PUT', '/content/static-pages/about', {
        body: fullPage(),
        token: employee,
      });
      expect(page.status).toBe(201);
      event = await latest();
      expect(event).toMatchObject({ type: 'static_page.published', ownerId: null });
      const pageId = event.resource.id;
      expect(event.data).toEqual({ id: pageId, slug: 'about', language: 'en' });
      expect((await ctx.request('GET', '/content/static-pages/about?language=en')).status).toBe(
        200,
      );
      await ctx.request('PUT', '/content/static-pages/about', {
        body: fullPage({ published: false }),
        token: employee,
      });
      expect(await latest()).toMatchObject({
        type: 'static_page.unpublished',
        resource: { kind: 'static_page', id: pageId },
        data: { id: pageId, slug: 'about', language: 'en' },
      });
      await ctx.request('DELETE', '/content/static-pages/about?language=en', { token: employee });
      event = await latest();
      expect(event).toMatchObject({
        type: 'static_page.deleted',
        resource: { kind: 'static_page', id: event.resource.id },
        data: { id: event.resource.id, slug: 'about', language: 'en' },
      });
    });

    test('an archive unpublishes units: one unit.updated per unit it unpublished, then property.archived', async () => {
      const id = await postProperty(ctx, { totalUnits: 3 });
      const units = await ctx.request<{ _embedded: { 'svc:units': { id: string }[] } }>(
        'GET',
        `/listings/properties/${id}/units`,
        { token: employee },
      );
      const [first, second] = units.body._embedded['svc:units'].map((unit) => unit.id) as [
        string,
        string,
      ];
      for (const unitId of [first, second]) {
        await ctx.request('PATCH', `/listings/properties/${id}/units/${unitId}`, {
          body: { published: true },
          token: employee,
        });
      }
      const { cursor } = await readAll(ctx, employee);
      await ctx.request('DELETE', `/listings/properties/${id}`, { body: {}, token: employee });
      const { events } = await readAll(ctx, employee, cursor);
      expect(events.map((event) => [event.type, event.resource.id])).toEqual([
        ['unit.updated', first],
        ['unit.updated', second],
        ['property.archived', id],
      ]);
      expect(events[0]!.data).toMatchObject({ published: false });
    });

    test('a convert to the same type changes nothing and appends nothing', async () => {
      const id = await postProperty(ctx);
      const before = await countRows(ctx, 'events');
      const res = await ctx.request('PUT', `/listings/properties/${id}/convert`, {
        body: { type: 'apartment' },
        token: employee,
      });
      expect(res.status).toBe(204);
      expect(await countRows(ctx, 'events')).toBe(before);
    });

    test('parallel creates, group-committed together, each get their own event, in id order', async () => {
      const { cursor } = await readAll(ctx, employee);
      const ids = await Promise.all(Array.from({ length: 40 }, () => postProperty(ctx)));
      const { events } = await readAll(ctx, employee, cursor);
      expect(events.map((event) => event.type)).toEqual(ids.map(() => 'property.created'));
      expect(events.map((event) => event.resource.id).sort()).toEqual([...ids].sort());
    });

    sqliteOnly.test(
      'counts the statements SQLite runs',
      'a batch of creates gets its events in create order, each with what GET answers, from one multi-row INSERT',
      async () => {
        const base = Date.UTC(2026, 0, 2);
        const rows = [0, 1, 2, 3].map((i) => ({
          type: 'studio' as const,
          ownerId: i % 2 ? OTHER_OWNER : OWNER,
          location: { ...propertyBody().location, cityId: 'madrid' as const },
          totalUnits: i + 1,
          createdAt: base - i * 1000,
        }));
        // A connection of its own: its statements are compiled, and so seen, here.
        const fresh = await listingsContext();
        const { cursor: start } = await readAll(fresh, fresh.employee);
        const spy = countStatements(fresh.db.$client);
        let ids: string[];
        try {
          ids = insertPropertiesBulk(fresh.db, rows).ids;
        } finally {
          spy.restore();
        }
        // The four events went in as one statement of four rows.
        const eventInserts = spy.ran.filter((text) => text.startsWith('INSERT INTO events'));
        expect(eventInserts).toHaveLength(1);
        expect(eventInserts[0]!.split('), (')).toHaveLength(4);
        // The feed answers in id order: the ids follow the order of the inputs.
        const { events } = await readAll(fresh, fresh.employee, start);
        expect(events.map((event) => event.resource.id)).toEqual(ids);
        for (const [i, event] of events.entries()) {
          expect(event.type).toBe('property.created');
          const read = await fresh.request('GET', `/listings/properties/${ids[i]}`, {
            token: fresh.employee,
          });
          expect(event.data as unknown).toEqual(read.body);
          expect(event.occurredAt).toBe(new Date(base - i * 1000).toISOString());
        }
      },
    );
  });

  describe('error', () => {
    test('in one group commit, a create refused by its quota gets no event and the others each get theirs', async () => {
      const app = createTestApp({ env: { QUOTA_PROPERTIES_PER_OWNER: '2' } });
      const token = await app.tokenFor(OWNER, 'customer');
      const answers = await Promise.all(
        [1, 2, 3].map(() =>
          app.request('POST', '/listings/properties', { body: propertyBody(), token }),
        ),
      );
      expect(answers.map((res) => res.status).sort()).toEqual([201, 201, 409]);
      const { events } = await readAll(app, token);
      const createdIds = answers
        .filter((res) => res.status === 201)
        .map((res) => res.headers.get('location')!.split('/').pop()!);
      expect(events.map((event) => event.resource.id).sort()).toEqual(createdIds.sort());
    });

    test('a write that fails appends nothing (409, 404, 422)', async () => {
      const id = await postProperty(ctx);
      await ctx.request('DELETE', `/listings/properties/${id}`, { body: {}, token: employee });
      const before = await countRows(ctx, 'events');
      const refused = [
        await ctx.request('DELETE', `/listings/properties/${id}`, { body: {}, token: employee }),
        await ctx.request('POST', `/listings/properties/${id}/units`, {
          body: {},
          token: employee,
        }),
        await ctx.request('PUT', '/listings/properties/missing/owner', {
          body: { ownerId: 'x' },
          token: employee,
        }),
        await ctx.request('POST', '/listings/properties/additional-data', {
          body: { id: 'missing', data: {} },
          token: employee,
        }),
      ];
      expect(refused.map((res) => res.status)).toEqual([409, 409, 404, 422]);
      expect(await countRows(ctx, 'events')).toBe(before);
    });
  });
});
