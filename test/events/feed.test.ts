import { describe, expect, test } from 'bun:test';
import { cursorOf } from '@/events/cursor';
import { EVENT_TYPES, EventPage } from '@/events/schemas';
import * as eventsPrune from '@/workers/events-prune';
import {
  addProperty,
  countRows,
  listingsContext,
  OTHER_OWNER,
  OWNER,
  postProperty,
} from '../listings/support';
import { badRequest, createTestApp, problemOf } from '../support/harness';
import { readAll, readFeed } from './support';

const DAY_MS = 24 * 60 * 60 * 1000;
const ctx = await listingsContext();
const { employee, customer } = ctx;

describe('GET /listings/events', () => {
  describe('happy', () => {
    test('keyset pages: limit, has_more and next_cursor walk every event once, in order', async () => {
      const ids = [await addProperty(ctx), await addProperty(ctx), await addProperty(ctx)];
      const first = await readFeed(ctx, employee, '?limit=2');
      expect(first.status).toBe(200);
      const page = EventPage.parse(first.body);
      expect(page.data.map((event) => event.resource.id)).toEqual(ids.slice(0, 2));
      expect(page).toMatchObject({ has_more: true, next_cursor: page.data[1]!.id });
      const second = await readFeed(ctx, employee, `?limit=2&after=${page.next_cursor}`);
      expect(EventPage.parse(second.body)).toMatchObject({
        data: [{ type: 'property.created', resource: { kind: 'property', id: ids[2] } }],
        has_more: false,
      });
      const last = second.body.next_cursor!;
      const empty = await readFeed(ctx, employee, `?after=${last}`);
      expect(empty.body).toEqual({ data: [], next_cursor: last, has_more: false });
    });

    test('types filter (comma or repeated); limit defaults to 100', async () => {
      const app = await listingsContext();
      for (let i = 0; i < 101; i++) await addProperty(app);
      const id = await postProperty(app);
      await app.request('PUT', `/listings/properties/${id}/convert`, {
        body: { type: 'studio' },
        token: app.employee,
      });
      const all = await readFeed(app, app.employee);
      expect([all.body.data.length, all.body.has_more]).toEqual([100, true]);
      for (const query of [
        '?types=property.converted,unit.created',
        '?types=property.converted&types=unit.created',
        '?types[]=property.converted',
      ]) {
        const res = await readFeed(app, app.employee, query);
        expect(res.body.data.map((event) => event.type)).toEqual(['property.converted']);
      }
    });

    test('a customer reads the events of its own properties only; an employee all, catalogue included', async () => {
      const app = await listingsContext();
      const mine = await postProperty(app);
      const theirs = await postProperty(app, { ownerId: OTHER_OWNER });
      await app.request('PUT', '/listings/neighbourhoods/sol', {
        body: { cityId: 'madrid', name: 'Sol' },
        token: app.employee,
      });
      const own = await readAll(app, app.customer);
      expect(own.events.map((event) => event.resource.id)).toEqual([mine]);
      expect(own.events.every((event) => event.ownerId === OWNER)).toBe(true);
      const other = await readAll(app, app.otherCustomer);
      expect(other.events.map((event) => event.resource.id)).toEqual([theirs]);
      const everything = await readAll(app, app.employee);
      expect(everything.events.map((event) => event.resource.id)).toEqual([mine, theirs, 'sol']);
      // A customer may resume from any cursor, even one of an event it cannot see.
      const after = await readFeed(app, app.customer, `?after=${everything.events[1]!.id}`);
      expect(after.body).toEqual({
        data: [],
        next_cursor: everything.events[1]!.id,
        has_more: false,
      });
    });

    test('an owner change: the previous owner reads {id} (it left its view), the new owner the property', async () => {
      const app = await listingsContext();
      const id = await postProperty(app);
      const before = await readAll(app, app.otherCustomer);
      const changed = await app.request('PUT', `/listings/properties/${id}/owner`, {
        body: { ownerId: OTHER_OWNER },
        token: app.employee,
      });
      expect(changed.status).toBe(204);
      const previous = await readAll(app, app.customer);
      expect(previous.events.at(-1)).toMatchObject({
        type: 'property.owner_changed',
        ownerId: OWNER,
        data: { id },
      });
      expect(Object.keys(previous.events.at(-1)!.data)).toEqual(['id']);
      const next = await readAll(app, app.otherCustomer, before.cursor);
      expect(next.events).toHaveLength(1);
      expect(next.events[0]).toMatchObject({
        type: 'property.owner_changed',
        ownerId: OTHER_OWNER,
        data: { id, ownerId: OTHER_OWNER },
      });
    });

    test('cursors survive a restart: a new service on the same file continues after them', async () => {
      const app = await listingsContext();
      await addProperty(app);
      const { cursor } = await readAll(app, app.employee);
      const id = await addProperty(app);
      await app.closeDatabase();
      const again = createTestApp({ databaseOf: app });
      const token = await again.tokenFor('employee-1', 'employee');
      const { events } = await readAll(again, token, cursor);
      expect(events.map((event) => event.resource.id)).toEqual([id]);
    });

    test('readers following the cursor during parallel writes see every event exactly once', async () => {
      const app = await listingsContext();
      const seen: string[] = [];
      let cursor: string | undefined;
      const follow = async () => {
        const page = await readAll(app, app.employee, cursor, 7);
        seen.push(...page.events.map((event) => event.id));
        cursor = page.cursor;
      };
      for (let round = 0; round < 10; round++) {
        await Promise.all([
          ...Array.from({ length: 6 }, () => postProperty(app)),
          follow(),
          ...Array.from({ length: 6 }, () => postProperty(app, { ownerId: OTHER_OWNER })),
        ]);
      }
      await follow();
      const everything = await readAll(app, app.employee);
      expect(everything.events.length).toBe(120);
      expect(seen).toEqual(everything.events.map((event) => event.id));
    });

    test('wait: an empty page is held open until an event commits, then answered with it', async () => {
      const app = await listingsContext();
      await addProperty(app);
      const { cursor } = await readAll(app, app.customer);
      const polling = readFeed(app, app.customer, `?wait=30&after=${cursor}`);
      // Another owner's event does not end the customer's wait; its own does.
      await postProperty(app, { ownerId: OTHER_OWNER });
      const id = await postProperty(app);
      const res = await polling;
      expect(res.status).toBe(200);
      expect(res.body.data.map((event) => event.resource.id)).toEqual([id]);
    });

    test('wait: answered at once when events are there; empty after the wait without one', async () => {
      const app = await listingsContext();
      await addProperty(app);
      const now = await readFeed(app, app.employee, '?wait=30');
      expect(now.body.data).toHaveLength(1);
      const idle = await readFeed(app, app.employee, `?wait=1&after=${now.body.next_cursor}`);
      expect(idle.body).toEqual({ data: [], next_cursor: now.body.next_cursor, has_more: false });
    });
  });

  describe('retention', () => {
    test('events-prune removes events older than EVENTS_RETENTION_DAYS; a cursor before them answers 410', async () => {
      const app = await listingsContext();
      const env = { EVENTS_RETENTION_DAYS: '2' };
      const pruned = createTestApp({
        ...{ env, databaseOf: app },
        clock: app.clock,
      });
      await addProperty(app, { createdAt: app.clock() });
      await addProperty(app, { createdAt: app.clock() });
      const old = await readAll(app, app.employee);
      // Tokens last an hour of the (moved) clock: a fresh one per read.
      const staff = () => app.tokenFor('employee-1', 'employee');
      app.clock.advance(DAY_MS);
      const kept = await addProperty(app, { createdAt: app.clock() });
      app.clock.advance(DAY_MS + 1);
      expect(await eventsPrune.run(pruned.deps)).toEqual({ pruned: 2, deliveries: 0 });
      expect(await eventsPrune.run(pruned.deps)).toEqual({ pruned: 0, deliveries: 0 });
      expect(await countRows(app, 'events')).toBe(1);

      const gone = await readFeed(app, await staff(), `?after=${old.events[0]!.id}`);
      expect(gone.status).toBe(410);
      expect(gone.headers.get('content-type')).toBe('application/problem+json');
      expect(gone.body as unknown).toEqual(problemOf(410));
      expect(problemOf(410).title).toBe('Gone');
      // The last pruned event's cursor still continues exactly where it left off.
      const edge = await readFeed(app, await staff(), `?after=${old.events[1]!.id}`);
      expect(edge.body.data.map((event) => event.resource.id)).toEqual([kept]);
      const fresh = await readFeed(app, await staff());
      expect(fresh.body.data.map((event) => event.resource.id)).toEqual([kept]);

      // With every event pruned, ids still never restart and old cursors stay 410.
      app.clock.advance(3 * DAY_MS);
      expect(await eventsPrune.run(pruned.deps)).toEqual({ pruned: 1, deliveries: 0 });
      expect((await readFeed(app, await staff(), `?after=${old.events[1]!.id}`)).status).toBe(410);
      const next = await addProperty(app, { createdAt: app.clock() });
      const after = await readFeed(app, await staff(), `?after=${fresh.body.next_cursor}`);
      expect(after.body.data.map((event) => event.resource.id)).toEqual([next]);
    });
  });

  describe('error', () => {
    test('400 for each bad query, with the problem body naming the parameter', async () => {
      const LIMIT = 'must be an integer from 1 to 500';
      const WAIT = 'must be an integer from 1 to 30';
      const AFTER = 'must be an event `id` or a `next_cursor` of this feed';
      const cases: [string, string, string][] = [
        ['?limit=0', 'limit', `${LIMIT} (got "0")`],
        ['?limit=501', 'limit', `${LIMIT} (got "501")`],
        ['?limit=ten', 'limit', `${LIMIT} (got "ten")`],
        ['?limit=1.5', 'limit', `${LIMIT} (got "1.5")`],
        ['?limit=1&limit=2', 'limit', 'is given more than once'],
        ['?wait=0', 'wait', `${WAIT} (got "0")`],
        ['?wait=31', 'wait', `${WAIT} (got "31")`],
        [
          '?types=property.exploded',
          'types',
          `must be one of ${EVENT_TYPES.join(', ')} (got "property.exploded")`,
        ],
        ['?after=nonsense', 'after', AFTER],
        [`?after=${cursorOf(1)}=`, 'after', AFTER],
        [`?after=${Buffer.from('ev1:01').toString('base64url')}`, 'after', AFTER],
        [`?after=${cursorOf(1)}&after=${cursorOf(2)}`, 'after', 'is given more than once'],
        ['?cursor=abc', 'cursor', 'is not a parameter of this operation'],
        ['?page=2', 'page', 'is not a parameter of this operation'],
      ];
      for (const [query, name, reason] of cases) {
        const res = await readFeed(ctx, employee, query);
        expect([query, res.status]).toEqual([query, 400]);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(res.body).toEqual(badRequest([name, reason]) as never);
      }
    });
  });

  describe('auth', () => {
    test('401 without a token or with a bad one', async () => {
      for (const token of [undefined, 'not-a-token']) {
        const res = await ctx.request('GET', '/listings/events', { token });
        expect(res.status).toBe(401);
        expect(res.body).toEqual(problemOf(401));
      }
      expect(customer).toBeString();
    });
  });
});
