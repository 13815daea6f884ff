import { expect } from 'bun:test';
import { createTestApp, manualClock } from '../support/harness';
import { sqliteOnly } from '../support/postgres-mode';
import { propertyBody } from './support';

const MiB = 1024 * 1024;

/** A JSON object of exactly 64 KiB, different for each `seed`. */
function document(seed: number): Record<string, string> {
  const skeleton = JSON.stringify({ seed: String(seed), fill: '' });
  return { seed: String(seed), fill: 'x'.repeat(64 * 1024 - skeleton.length) };
}

sqliteOnly.test(
  'the size of the SQLite file is the measure',
  'additional data is stored once: 250 overwrites of 64 KiB grow the database by at most 4 MiB, not by a copy per event',
  async () => {
    // One minute of the clock: 250 writes stay under the customer write limit (300 a minute).
    const app = createTestApp({ clock: manualClock(Date.UTC(2026, 3, 1)) });
    try {
      const owner = await app.tokenFor('owner-1');
      const created = await app.request('POST', '/listings/properties', {
        token: owner,
        body: propertyBody(),
      });
      expect(created.status).toBe(201);
      const id = created.headers.get('location')!.split('/').pop()!;
      const put = (seed: number) =>
        app.request('PUT', `/listings/properties/${id}/additional-data`, {
          token: owner,
          body: { data: document(seed) },
        });
      expect((await put(0)).status).toBe(200);
      /** Bytes of the database file once the WAL is folded into it. */
      const fileBytes = () => {
        app.db.$client.query('PRAGMA wal_checkpoint(TRUNCATE)').run();
        const { pages } = app.db.$client
          .query('SELECT page_count AS pages FROM pragma_page_count()')
          .get() as { pages: number };
        const { size } = app.db.$client
          .query('SELECT page_size AS size FROM pragma_page_size()')
          .get() as { size: number };
        return pages * size;
      };
      const before = fileBytes();
      for (let seed = 1; seed <= 250; seed++) expect((await put(seed)).status).toBe(200);
      const grown = fileBytes() - before;
      // A copy of the document in each event would be 250 × 64 KiB = 15.6 MiB.
      expect(grown).toBeLessThanOrEqual(4 * MiB);
      const events = app.db.$client
        .query(
          "SELECT count(*) AS n, max(length(data)) AS longest FROM events WHERE type = 'additional_data.updated'",
        )
        .get() as { n: number; longest: number };
      expect(events).toEqual({ n: 251, longest: JSON.stringify({ id }).length });
    } finally {
      await app.closeDatabase();
    }
  },
);
