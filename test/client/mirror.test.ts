import { describe, expect, test } from 'bun:test';
import { cursorOf } from '@/events/cursor';
import type { MirrorBatch, Property } from '../../client/src';
import { sqliteOnly } from '../support/postgres-mode';
import { propertyBody, serviceUnderTest } from './support';

const svc = await serviceUnderTest({ RATE_LIMITS: 'off' });
const { employee } = svc;

async function drain(batches: AsyncIterable<MirrorBatch>, held = new Map<string, Property>()) {
  const seen: MirrorBatch[] = [];
  for await (const batch of batches) {
    seen.push(batch);
    if (batch.reset) held.clear();
    for (const p of batch.upserts) held.set(p.id, p);
    for (const id of batch.removals) held.delete(id);
  }
  return { held, seen, cursor: seen.findLast((b) => b.cursor !== null)?.cursor ?? null };
}

const listed = async () => {
  const all: Property[] = [];
  for await (const p of employee.listings.properties.all({ itemsPerPage: 100 })) all.push(p);
  return new Map(all.map((p) => [p.id, p]));
};

describe('client.listings.mirror', () => {
  test('lists in keyset pages, then resumes from the saved cursor with only the changes', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await employee.listings.properties.create(propertyBody('owner-m'))).id);
    }
    const first = await drain(employee.listings.mirror({}, { itemsPerPage: 2 }));
    expect(first.seen[0]!.reset).toBe(true);
    expect(first.seen.slice(0, -1).every((b) => b.cursor === null)).toBe(true);
    expect(first.held).toEqual(await listed());

    // A restart: the copy and its cursor were saved; only the changes come.
    await employee.listings.properties.archive(ids[0]!);
    await employee.listings.units.create(ids[1]!);
    await employee.listings.properties.changeOwner(ids[2]!, { ownerId: 'owner-n' });
    const resumed = await drain(employee.listings.mirror({}, { after: first.cursor! }), first.held);
    expect(resumed.seen.every((b) => !b.reset)).toBe(true);
    expect(resumed.seen.flatMap((b) => b.upserts.map((p) => p.id)).sort()).toEqual(
      ids.slice(0, 3).sort(),
    );
    expect(resumed.held).toEqual(await listed());

    // The previous owner's mirror is told the property left.
    const owner = await svc.customer('owner-m');
    const mine = await drain(owner.listings.mirror());
    await employee.listings.properties.changeOwner(ids[3]!, { ownerId: 'owner-n' });
    const after = await drain(owner.listings.mirror({}, { after: mine.cursor! }), mine.held);
    expect(after.seen.flatMap((b) => b.removals)).toEqual([ids[3]!]);
    expect([...after.held.keys()].sort()).toEqual(ids.filter((_, i) => i !== 2 && i !== 3).sort());
  });

  sqliteOnly.test(
    'events pruned from the service',
    'a feed answering 410 makes it list again by itself',
    async () => {
      await employee.listings.properties.create(propertyBody('owner-m'));
      svc.db.$client.run('DELETE FROM events WHERE id <= 2');
      const stale = new Map<string, Property>([['gone', {} as Property]]);
      const { held, seen } = await drain(
        employee.listings.mirror({}, { after: cursorOf(1) }),
        stale,
      );
      expect(seen[0]!.reset).toBe(true);
      expect(held).toEqual(await listed());
    },
  );
});
