/**
 * What a create writes to the WAL, by table and index. From an empty file
 * (or a copy of `--database`), batches of creates written as the group
 * commit writes them (one transaction each, 1–30 units a property, bodies
 * spread over the cities and owners as `bench:reference -- --creates` sends
 * them) until `--until` properties exist, so the events and every index have
 * grown as in that benchmark; then `--batches` more with checkpoints off, so
 * the WAL keeps every frame. Each frame's page is
 * then named by `dbstat` (the b-tree it belongs to). Two figures per b-tree:
 * frames a create (what the commits append) and distinct pages a create over
 * runs of `--windows` frames (what checkpoints that many frames apart copy
 * into the file and sync: a page written by many commits is copied once;
 * 1,000 is SQLite's own checkpoint and the thread's threshold, 4,000 the
 * service's backstop).
 *
 * `--reference` does the same for the reference implementation's tables and
 * inserts (bench/reference): one create a transaction, as it commits them.
 *
 *   npm run bench:create-pages -- [--until 200000 --batch 17 --batches 300 --windows 1000,4000 --database FILE]
 *   npm run bench:create-pages -- --reference [--until 200000 --batches 5100]
 */
import { Database } from 'bun:sqlite';
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { uuidv7 } from '@/db/ids';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { appendEvents } from '@/events/sqlite-outbox';
import { createdEventsOf } from '@/listings/events';
import { planCreates } from '@/listings/properties/bulk';
import type { PropertyRecord } from '@/listings/properties/representation';
import { PropertyCreate } from '@/listings/properties/schemas';
import { insertPlanned } from '@/listings/properties/sqlite-bulk';
import { PROPERTY_COLUMNS } from '@/listings/properties/sqlite-record';
import { tempDir } from '../test/support/harness';
import { bodyPrefixes } from './reference-creates';
import { emptyReference } from './reference-data';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    database: { type: 'string' },
    until: { type: 'string', default: '200000' },
    reference: { type: 'boolean', default: false },
    batch: { type: 'string' },
    batches: { type: 'string' },
    windows: { type: 'string' },
  },
});
const reference = values.reference;
const batchSize = Number(values.batch ?? (reference ? 1 : 17));
const batches = Number(values.batches ?? (reference ? 5100 : 300));
const windows = (values.windows ?? '1000,4000').split(',').map(Number);
const until = Number(values.until);

const dir = tempDir('listings-bench-pages-');
const path = join(dir, 'app.db');
const prefixes = bodyPrefixes(until);
let counter = 0;
interface Body {
  type: string;
  ownerId: string;
  totalUnits: number;
  rentableUnits: number;
  yearOfConstruction: number;
  isVisitable: boolean;
  location: {
    addressLine1: string;
    city: string;
    cityId: string;
    postalCode: string;
    latitude: number;
    longitude: number;
  };
}
/** The bench's body for the next create: 1–30 units, owners and cities spread. */
function body(): Body {
  counter++;
  const units = 1 + ((counter * 7919) % 30);
  const rentable = 1 + ((counter * 104729) % units);
  return JSON.parse(
    `${prefixes[(counter * 31) % prefixes.length]}"totalUnits":${units},"rentableUnits":${rentable}}`,
  );
}

/** The service: a group commit's transaction, as `POST /listings/properties` writes it. */
function serviceWriter(): { client: Database; writeBatch(): void } {
  if (values.database) copyFileSync(values.database, path);
  const db = openDatabase(path);
  migrateDatabase(db);
  const client = db.$client;
  const RECORDS = `SELECT ${PROPERTY_COLUMNS} FROM properties p WHERE p.id IN (SELECT value FROM json_each(?))`;
  return {
    client,
    writeBatch() {
      const bodies = Array.from({ length: batchSize }, () => PropertyCreate.parse(body()));
      client.exec('BEGIN IMMEDIATE');
      const planned = planCreates(
        bodies.map((b) => ({ ...b, source: 'outbound' as const })),
        Date.now(),
      );
      insertPlanned(db, planned);
      const rows = client.query<PropertyRecord, [string]>(RECORDS).all(JSON.stringify(planned.ids));
      appendEvents(db, createdEventsOf(planned.created, rows));
      client.exec('COMMIT');
    },
  };
}

/** The reference: its tables and its inserts (bench/reference/server.mjs), `batchSize` creates a transaction. */
function referenceWriter(): { client: Database; writeBatch(): void } {
  emptyReference(path);
  const client = new Database(path);
  client.exec('PRAGMA journal_mode = WAL');
  client.exec('PRAGMA synchronous = NORMAL');
  client.exec('PRAGMA foreign_keys = ON');
  client.exec('PRAGMA cache_size = -65536');
  const country = new Map(
    client
      .query<{ id: string; country: string }, []>('SELECT id, country FROM cities')
      .all()
      .map((row) => [row.id, row.country]),
  );
  const insertProperty = client.prepare(
    `INSERT INTO properties (id, type, owner_id, address_line1, address_line2, city, city_id,
       postal_code, country, latitude, longitude, total_units, rentable_units, year_of_construction,
       is_visitable, source, created_at, updated_at)
     VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'outbound', ?, ?)`,
  );
  const insertUnit = client.prepare(
    'INSERT INTO units (id, property_id, rentable, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
  );
  return {
    client,
    writeBatch() {
      client.exec('BEGIN');
      for (let i = 0; i < batchSize; i++) {
        const b = body();
        const now = Date.now();
        const id = uuidv7(now);
        const at = b.location;
        insertProperty.run(
          id,
          b.type,
          b.ownerId,
          at.addressLine1,
          at.city,
          at.cityId,
          at.postalCode,
          country.get(at.cityId)!,
          at.latitude,
          at.longitude,
          b.totalUnits,
          b.rentableUnits,
          b.yearOfConstruction,
          b.isVisitable ? 1 : 0,
          now,
          now,
        );
        for (let n = 0; n < b.totalUnits; n++) {
          insertUnit.run(uuidv7(now), id, n < b.rentableUnits ? 1 : 0, now, now);
        }
      }
      client.exec('COMMIT');
    },
  };
}

const { client, writeBatch } = reference ? referenceWriter() : serviceWriter();
const count = () =>
  client.query<{ n: number }, []>('SELECT count(*) AS n FROM properties').get()!.n;
// Up to `until` in the benchmark's batches, whichever side: the files grow alike.
while (count() < until) for (let i = 0; i < 100; i++) writeBatch();
const start = count();
client.exec('PRAGMA wal_checkpoint(TRUNCATE)');
client.exec('PRAGMA wal_autocheckpoint = 0');
for (let i = 0; i < batches; i++) writeBatch();

// The b-tree each page belongs to, as the file stands (the WAL included).
const owner = new Map<number, string>();
for (const { name, pageno } of client
  .query<{ name: string; pageno: number }, []>('SELECT name, pageno FROM dbstat')
  .iterate()) {
  owner.set(pageno, name);
}
const pageSize = client.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size;
const wal = readFileSync(`${path}-wal`);
const frameBytes = 24 + pageSize;
const frames: number[] = [];
for (let at = 32; at + frameBytes <= wal.length; at += frameBytes)
  frames.push(wal.readUInt32BE(at));
client.close();
rmSync(dir, { recursive: true, force: true });

const creates = batches * batchSize;
const nameOf = (page: number) => owner.get(page) ?? '(free list or header)';
const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
const appended = new Map<string, number>();
for (const page of frames) add(appended, nameOf(page));
/** Distinct pages by b-tree in each run of `size` frames: what checkpoints that far apart copy. */
const copiedIn = (size: number) => {
  const copied = new Map<string, number>();
  for (let from = 0; from < frames.length; from += size) {
    for (const page of new Set(frames.slice(from, from + size))) add(copied, nameOf(page));
  }
  return copied;
};
const copied = windows.map(copiedIn);
const total = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
const perCreate = (n: number, width: number) => (n / creates).toFixed(2).padStart(width);
console.log(
  `${start.toLocaleString('en')} properties at the start; ${creates} creates in batches of ${batchSize}; ${frames.length} frames`,
);
const heads = windows.map((size) => `distinct/create in ${size}`);
console.log(`${'b-tree'.padEnd(40)} frames/create  ${heads.join('  ')}`);
for (const [name, n] of [...appended].sort((a, b) => b[1] - a[1])) {
  const columns = copied.map((map, i) => perCreate(map.get(name) ?? 0, heads[i]!.length));
  console.log(`${name.padEnd(40)} ${perCreate(n, 13)}  ${columns.join('  ')}`);
}
const totals = copied.map((map, i) => perCreate(total(map), heads[i]!.length));
console.log(`${'total'.padEnd(40)} ${perCreate(total(appended), 13)}  ${totals.join('  ')}`);
