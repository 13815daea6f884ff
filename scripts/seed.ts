/**
 * `npm run seed -- --properties N --units-per-property K`: loads N properties
 * with K units each (`--units-per-property 1-30`: from 1 to 30, uniformly) into DATABASE_PATH (migrated first) through
 * `insertPropertiesBulk`, in batches of one transaction each, with a progress
 * bar on stderr. The data is varied and reproducible (a seeded generator):
 * every one of the 106 cities (a few large, many small), the 4 types, a pool
 * of owners, addresses, unit features, some archived and published
 * properties. Also imports the example static pages of content/.
 */
import { join } from 'node:path';
import { importStaticPages } from '@/content/import';
import { sqliteContentStore } from '@/content/sqlite-store';
import { type Db, migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { CITY_IDS, type CityId } from '@/listings/cities';
import type { BulkPropertyInput, BulkUnitFeature, BulkUnitInput } from '@/listings/properties/bulk';
import { MAX_UNITS, type PropertyType } from '@/listings/properties/schemas';
import { insertPropertiesBulk } from '@/listings/properties/sqlite-bulk';
import { command, loadConfig } from './cli';
import { seedCommand, unitRangeOf } from './commands';

/** mulberry32: a small, fast, seeded generator (the same seed gives the same database). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks from `[item, weight]` pairs with a cumulative table (weights need not sum to 1). */
function weighted<T>(pairs: readonly (readonly [T, number])[]): (r: number) => T {
  const total = pairs.reduce((sum, [, w]) => sum + w, 0);
  let running = 0;
  const cumulative = pairs.map(([item, w]) => {
    running += w / total;
    return [item, running] as const;
  });
  return (r) => {
    for (const [item, upTo] of cumulative) if (r < upTo) return item;
    return cumulative.at(-1)![0];
  };
}

// A few large cities and a long tail (Zipf-like): madrid holds about 12 %,
// the smallest about 0.35 % of the properties.
const pickCity = weighted(CITY_IDS.map((id, rank) => [id, 1 / (rank + 1) ** 0.8] as const));
export const pickType = weighted<PropertyType>([
  ['apartment', 0.55],
  ['studio', 0.2],
  ['roomShared', 0.15],
  ['residence', 0.1],
]);

export const STREETS = [
  'Calle Mayor',
  'Gran Vía',
  'Avenida de la Constitución',
  'Rue de la République',
  'Boulevard Voltaire',
  'Via Roma',
  'Corso Italia',
  'Hauptstraße',
  'Bahnhofstraße',
  'High Street',
  'Station Road',
  'Rua Augusta',
  'ulica Długa',
  'Váci utca',
  'Odos Ermou',
  'Kerkstraat',
  'Sheikh Zayed Road',
  'Rue Sainte-Catherine',
];

/** What a unit may carry, with the share of units that has it. */
export const FEATURES: readonly (readonly [BulkUnitFeature, number])[] = [
  [{ applicability: 'unit', category: 'amenities', name: 'airConditioning', value: 'true' }, 0.2],
  [{ applicability: 'unit', category: 'amenities', name: 'balcony', value: 'true' }, 0.1],
  [{ applicability: 'unit', category: 'furniture', name: 'furnished', value: 'true' }, 0.08],
  [{ applicability: 'unit', category: 'furniture', name: 'furnished', value: 'false' }, 0.02],
  [{ applicability: 'building', category: 'accessibility', name: 'elevator', value: 'true' }, 0.08],
  // Rare ones: what a narrow search looks for.
  [{ applicability: 'building', category: 'amenities', name: 'pool', value: 'true' }, 0.01],
  [
    {
      applicability: 'building',
      category: 'accessibility',
      name: 'wheelchairAccessible',
      value: 'true',
    },
    0.001,
  ],
];

const cityName = (id: CityId) =>
  id
    .split('_')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join(' ');

/** Display name and a stable centre per city (not its real one): 35..60° N, 10° W..30° E. */
export const CITIES = new Map(
  CITY_IDS.map((id) => {
    const r = random([...id].reduce((h, c) => Math.imul(h, 31) + c.charCodeAt(0), 7));
    return [id, { name: cityName(id), latitude: 35 + r() * 25, longitude: -10 + r() * 40 }];
  }),
);

export interface SeedOptions {
  properties: number;
  unitsPerProperty: number;
  /** When set, each property gets from `unitsPerProperty` to this many units, uniformly. */
  maxUnitsPerProperty?: number;
  /** Properties per transaction. */
  batch?: number;
  seed?: number;
  /** Creation times spread evenly up to this instant (ids are time-ordered UUIDv7). */
  now?: number;
  onProgress?: (done: number) => void;
  /** Checked between batches: stop early (an interrupted seed keeps what it committed). */
  shouldStop?: () => boolean;
}

/** Owner ids: one owner per ~200 properties, at least 5. */
export const ownerIdOf = (n: number) =>
  `00000000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
export const ownersFor = (properties: number) => Math.max(5, Math.round(properties / 200));

const YEAR_MS = 365 * 24 * 3600 * 1000;

/**
 * Generates and inserts the properties batch by batch (one transaction each),
 * yielding to the event loop in between so a signal can stop it; answers the counts.
 */
export async function seedProperties(db: Db, options: SeedOptions) {
  const { properties, unitsPerProperty } = options;
  const maxUnits = options.maxUnitsPerProperty ?? unitsPerProperty;
  if (unitsPerProperty < 1 || maxUnits < unitsPerProperty || maxUnits > MAX_UNITS) {
    throw new RangeError(`--units-per-property must be 1..${MAX_UNITS} (or a range within it)`);
  }
  const spread = maxUnits - unitsPerProperty + 1;
  const batch = options.batch ?? 20_000;
  const next = random(options.seed ?? 1);
  const now = options.now ?? Date.now();
  const owners = ownersFor(properties);
  const span = 3 * YEAR_MS;
  const step = properties > 0 ? span / properties : 0;
  const features = FEATURES.map(([feature, share]) => [feature, share] as const);
  let done = 0;
  let units = 0;
  let featureRows = 0;
  for (let start = 0; start < properties && !options.shouldStop?.(); start += batch) {
    const rows: BulkPropertyInput[] = [];
    for (let i = start; i < Math.min(properties, start + batch); i++) {
      const cityId = pickCity(next());
      const city = CITIES.get(cityId)!;
      const archived = next() < 0.03;
      // A fixed count draws nothing, so its seeds stay as they were.
      const unitCount =
        spread === 1 ? unitsPerProperty : unitsPerProperty + Math.floor(next() * spread);
      const rentable = unitCount - Math.floor(next() * next() * unitCount);
      const unitRows: BulkUnitInput[] = [];
      for (let u = 0; u < unitCount; u++) {
        const own: BulkUnitFeature[] = [];
        for (const [feature, share] of features) if (next() < share) own.push(feature);
        featureRows += own.length;
        unitRows.push({ rentable: u < rentable, published: next() < 0.4, features: own });
      }
      const street = STREETS[Math.floor(next() * STREETS.length)]!;
      const postal = String(10000 + Math.floor(next() * 89999));
      rows.push({
        type: pickType(next()),
        ownerId: ownerIdOf(Math.floor(next() * owners)),
        location: {
          addressLine1: `${street} ${1 + Math.floor(next() * 250)}`,
          ...(next() < 0.4 ? { addressLine2: `Floor ${1 + Math.floor(next() * 9)}` } : {}),
          city: city.name,
          cityId,
          postalCode: postal,
          latitude: Math.round((city.latitude + (next() - 0.5) / 10) * 1e6) / 1e6,
          longitude: Math.round((city.longitude + (next() - 0.5) / 10) * 1e6) / 1e6,
        },
        ...(next() < 0.7 ? { yearOfConstruction: 1900 + Math.floor(next() * 125) } : {}),
        isVisitable: next() < 0.5,
        verified: next() < 0.6,
        source: next() < 0.5 ? 'outbound' : 'inbound',
        archived,
        createdAt: Math.floor(now - span + i * step),
        units: unitRows,
      });
    }
    const inserted = insertPropertiesBulk(db, rows, { now, events: false });
    done += inserted.properties;
    units += inserted.units;
    options.onProgress?.(done);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { properties: done, units, features: featureRows };
}

/** `[#####-----] 45% 450,000/1,000,000  12.3 s`: redrawn in place on a terminal, else every 10 %. */
export function progressBar(
  total: number,
  label: string,
  write: (line: string) => unknown = (line) => process.stderr.write(line),
) {
  const started = performance.now();
  const tty = process.stderr.isTTY === true;
  let lastTenth = -1;
  return (done: number) => {
    const share = total === 0 ? 1 : done / total;
    const tenth = Math.floor(share * 10);
    if (!tty && tenth === lastTenth && done < total) return;
    lastTenth = tenth;
    const width = 30;
    const filled = Math.round(share * width);
    const elapsed = (performance.now() - started) / 1000;
    const eta = share > 0 ? elapsed / share - elapsed : 0;
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}% ${done.toLocaleString('en')}/${total.toLocaleString('en')} ${label}  ${elapsed.toFixed(1)} s${done < total ? `, ${eta.toFixed(0)} s left` : ''}`;
    write(tty ? `\r${line}${done >= total ? '\n' : ''}` : `${line}\n`);
  };
}

const FTS = 'property_address_search';

interface IndexDefinition {
  name: string;
  sql: string;
}

/**
 * The secondary indexes of the listing tables, except the ones the foreign
 * keys of `units` and `unit_features` look rows up by.
 */
function deferrableIndexes(db: Db): IndexDefinition[] {
  return db.$client
    .query<IndexDefinition, []>(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
         AND tbl_name IN ('properties', 'units', 'unit_features') AND name != 'properties_id_unique'`,
    )
    .all();
}

/** The triggers that log writes to the listing tables for the read caches. */
function changeLogTriggers(db: Db): IndexDefinition[] {
  return db.$client
    .query<IndexDefinition, []>(
      `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'cache_log_%'
         AND tbl_name IN ('properties', 'units', 'unit_features')`,
    )
    .all();
}

/**
 * For the length of a bulk load:
 * - into an empty table, the secondary indexes are dropped and built again
 *   at the end (one sort each instead of millions of B-tree inserts, a
 *   quarter of the load's time); an interrupted seed (Ctrl-C) still rebuilds
 *   them, only a killed one leaves them missing (seed again into a new file);
 * - no incremental merging of the address trigram index (FTS5 `automerge`
 *   would re-merge its segments after every batch); one `optimize` merges
 *   them at the end and the FTS5 default (4) is restored;
 * - into an empty table, no row-by-row `cache_changes` rows (their triggers
 *   are dropped and made again at the end, with one `reset` row that makes
 *   every read cache start over);
 * - a larger page cache for this connection; the WAL is truncated afterwards.
 */
export async function withBulkLoadSettings<T>(db: Db, load: () => Promise<T>): Promise<T> {
  const client = db.$client;
  const empty = client.query('SELECT 1 FROM properties LIMIT 1').get() === null;
  const deferred = empty ? deferrableIndexes(db) : [];
  const changeLog = empty ? changeLogTriggers(db) : [];
  client.exec('PRAGMA cache_size = -262144');
  client.exec(`INSERT INTO ${FTS} (${FTS}, rank) VALUES ('automerge', 0)`);
  for (const index of deferred) client.exec(`DROP INDEX ${index.name}`);
  for (const trigger of changeLog) client.exec(`DROP TRIGGER ${trigger.name}`);
  try {
    return await load();
  } finally {
    for (const index of deferred) client.exec(index.sql);
    for (const trigger of changeLog) client.exec(trigger.sql);
    if (changeLog.length > 0) {
      client.exec("INSERT INTO cache_changes (topic, key) VALUES ('reset', '')");
    }
    client.exec(`INSERT INTO ${FTS} (${FTS}) VALUES ('optimize')`);
    client.exec(`INSERT INTO ${FTS} (${FTS}, rank) VALUES ('automerge', 4)`);
    client.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }
}

if (import.meta.main) {
  // The values are checked by seedCommand: whole numbers, a unit count or range within bounds.
  const { values } = command(seedCommand);
  const config = loadConfig();
  const count = (value: string | undefined, fallback: number) =>
    value === undefined ? fallback : Number(value);
  const properties = count(values.properties, 1000);
  const units = unitRangeOf(values['units-per-property'] ?? '5')!;
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(130);
    stopping = true;
    console.error('\nseed: stopping after this batch (Ctrl-C again to abort at once)');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const started = performance.now();
  const db = openDatabase(config.databasePath);
  migrateDatabase(db);
  const pages = await importStaticPages(
    sqliteContentStore(db),
    join(import.meta.dir, '..', 'content'),
    Date.now(),
  );
  const result = await withBulkLoadSettings(db, () =>
    seedProperties(db, {
      properties,
      unitsPerProperty: units.min,
      maxUnitsPerProperty: units.max,
      batch: count(values.batch, 20_000),
      seed: count(values.seed, 1),
      onProgress: progressBar(properties, 'properties'),
      shouldStop: () => stopping,
    }),
  );
  db.$client.close();
  const seconds = (performance.now() - started) / 1000;
  const n = (value: number) => value.toLocaleString('en');
  console.log(
    `seeded ${n(result.properties)} properties, ${n(result.units)} units, ${n(result.features)} unit features, ${pages.imported.length} static pages into ${config.databasePath} in ${seconds.toFixed(1)} s`,
  );
  process.exit(stopping ? 130 : 0);
}
