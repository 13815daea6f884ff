import { expect, test } from 'bun:test';
import type { JobContext } from '@/workers/job';
import { run } from '@/workers/unit-counter-reconcile';
import { rowsOf } from '../listings/support';
import { createTestApp } from '../support/harness';

const input = (i: number) => ({
  type: 'apartment' as const,
  ownerId: `owner-${i % 3}`,
  location: {
    addressLine1: `Street ${i}`,
    city: 'Madrid',
    cityId: 'madrid' as const,
    postalCode: '28001',
    latitude: 40.4,
    longitude: -3.7,
  },
  totalUnits: 3,
  rentableUnits: 2,
});

const running: JobContext = { signal: new AbortController().signal, shouldStop: () => false };

test('unit-counter-reconcile repairs hand-corrupted counters over every chunk and counts them', async () => {
  const ctx = createTestApp();
  const { deps } = ctx;
  const ids = await deps.stores.listings.insertProperties(
    Array.from({ length: 25 }, (_, i) => input(i)),
  );
  for (const id of [ids[0]!, ids[11]!, ids[24]!]) {
    await rowsOf(
      ctx,
      'UPDATE properties SET total_units = 30, rentable_units = 0 WHERE id = ?',
      id,
    );
  }
  const details = await run(deps, running, 10);
  expect(details).toMatchObject({ scanned: 25, repaired: 3, chunks: 3, stopped: false });
  const rows = await rowsOf(ctx, 'SELECT DISTINCT total_units, rentable_units FROM properties');
  expect(rows).toEqual([{ total_units: 3, rentable_units: 2 }]);
  expect(await run(deps, running, 10)).toMatchObject({ scanned: 25, repaired: 0 });
});

test('unit-counter-reconcile stops after the current chunk when asked', async () => {
  const { deps } = createTestApp();
  await deps.stores.listings.insertProperties(Array.from({ length: 30 }, (_, i) => input(i)));
  let chunks = 0;
  const stopping: JobContext = {
    signal: new AbortController().signal,
    shouldStop: () => chunks++ >= 1,
  };
  expect(await run(deps, stopping, 10)).toMatchObject({ scanned: 10, chunks: 1, stopped: true });
});

test('through the scheduler the run is recorded with its figures', async () => {
  const { deps } = createTestApp();
  const result = await deps.jobs!.runNow('unit-counter-reconcile');
  expect(result).toMatchObject({ outcome: 'succeeded', details: { scanned: 0, repaired: 0 } });
});
