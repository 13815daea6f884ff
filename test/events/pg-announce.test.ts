import { expect, test } from 'bun:test';
import { postgresEventStore } from '@/events/postgres-store';
import { onEvents } from '@/events/signal';
import { postgresListingsStore } from '@/listings/postgres-store';
import { suiteDatabases } from '../support/postgres';

/**
 * On PostgreSQL a write's transaction commits after a round trip, so the
 * announcement that wakes the long polls and the delivery kick must come
 * after it: announced from inside, the kick's delivery run found no event
 * yet and the webhook waited for the next tick. Each write here records,
 * when it is announced, whether its own promise (resolved after COMMIT)
 * had settled.
 */
const databases = suiteDatabases();

async function settledWhenAnnounced(write: () => Promise<unknown>): Promise<boolean[]> {
  const seen: boolean[] = [];
  let settled = false;
  const stop = onEvents(() => seen.push(settled));
  try {
    await write();
    settled = true;
    // The announcement runs on a later macrotask.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    stop();
  }
  return seen;
}

const seed = {
  type: 'studio' as const,
  ownerId: 'owner-1',
  location: {
    addressLine1: 'Calle Mayor 1',
    city: 'Madrid',
    cityId: 'madrid' as const,
    postalCode: '28013',
    latitude: 40.4,
    longitude: -3.7,
  },
};

databases.describe('event announcements after COMMIT', () => {
  test('creates, bulk inserts and event appends announce once committed', async () => {
    const { client } = await databases.withClient();
    const listings = postgresListingsStore(client);
    const announced = [
      ...(await settledWhenAnnounced(() =>
        listings.createProperty({ row: seed, counted: false }, 100),
      )),
      ...(await settledWhenAnnounced(() => Promise.resolve(listings.insertProperties([seed])))),
      ...(await settledWhenAnnounced(
        () =>
          postgresEventStore(client).appendEvents([
            {
              event: {
                type: 'property.archived',
                resource: { kind: 'property', id: 'p-1' },
                ownerId: 'owner-1',
                data: { id: 'p-1' },
              },
              now: Date.now(),
            },
          ]) as Promise<void>,
      )),
    ];
    expect(announced).toEqual([true, true, true]);
  });
});
