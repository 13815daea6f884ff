/**
 * A create's cost by part, measured in-process on a copy of a seeded file
 * (`bun run seed`): batches of creates with 1–30 units, each part of the
 * write timed on its own (planning and ids, the property INSERT with its
 * indexes and triggers, the unit INSERT, reading the rows back, the events,
 * the COMMIT), and the same batches through the whole request pipeline
 * (`fetch`: JSON, validation, auth, routing, group commit, the 201). The
 * property INSERT is split by its triggers: each variant takes one trigger
 * out, and the variants take turns round by round on the same file, so a
 * shared machine's drift hits them alike. Figures are medians of µs per create.
 *
 *   bun bench/create-cost.ts --database /path/seeded.db [--batch 16 --batches 40 --rounds 5]
 */
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createService } from '@/app';
import { parseConfig } from '@/config';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { rowInserter } from '@/db/sqlite/insert-rows';
import { units } from '@/db/sqlite/schema';
import { buildDeps } from '@/deps';
import { appendEvents } from '@/events/sqlite-outbox';
import { CITY_IDS } from '@/listings/cities';
import { createdEventsOf } from '@/listings/events';
import { type PlannedUnit, planCreates } from '@/listings/properties/bulk';
import type { PropertyRecord } from '@/listings/properties/representation';
import { PropertyCreate } from '@/listings/properties/schemas';
import { insertPlanned } from '@/listings/properties/sqlite-bulk';
import { PROPERTY_COLUMNS } from '@/listings/properties/sqlite-record';
import { createLogger } from '@/logger';
import { BASE, tempDir } from '../test/support/harness';

const { values } = parseArgs({
  args: Bun.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    database: { type: 'string' },
    batch: { type: 'string', default: '16' },
    batches: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '5' },
  },
});
if (!values.database) throw new Error('--database <seeded file> is required');
const batchSize = Number(values.batch);
const batches = Number(values.batches);
const rounds = Number(values.rounds);

const dir = tempDir('listings-bench-create-');
const path = join(dir, 'app.db');
copyFileSync(values.database, path);
const config = parseConfig({
  DATABASE_PATH: path,
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123456789',
  WORKERS: 'off',
  RATE_LIMIT_EMPLOYEE_PER_MINUTE: '1000000',
});
const db = openDatabase(path);
migrateDatabase(db);
const client = db.$client;
const { fetch, deps } = createService(buildDeps({ config, db, logger: createLogger('silent') }));
const employee = await deps.tokens.issue('bench-employee', 'employee', 3600);

let counter = 0;
function body() {
  counter++;
  const totalUnits = 1 + (counter % 30);
  return {
    type: 'apartment',
    ownerId: `bench-owner-${counter % 997}`,
    totalUnits,
    rentableUnits: Math.max(1, totalUnits >> 1),
    location: {
      addressLine1: `Calle de la Prueba ${counter}`,
      city: 'Somewhere',
      cityId: CITY_IDS[counter % CITY_IDS.length],
      postalCode: String(10000 + (counter % 89999)),
      latitude: 40 + (counter % 1000) / 1000,
      longitude: -3 - (counter % 1000) / 1000,
    },
  };
}

const PARTS = ['plan', 'property', 'units', 'readBack', 'events', 'commit'] as const;
type Part = (typeof PARTS)[number];
const RECORDS = `SELECT ${PROPERTY_COLUMNS} FROM properties p WHERE p.id IN (SELECT value FROM json_each(?))`;

/** One batch written as the group commit writes it, each part timed (ms). */
function writeBatch(): Record<Part, number> {
  const bodies = Array.from({ length: batchSize }, () => PropertyCreate.parse(body()));
  const times = {} as Record<Part, number>;
  // CPU time (user + system), not wall time: other processes on a shared machine do not count.
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  let at = cpu();
  const lap = (part: Part) => {
    const now = cpu();
    times[part] = now - at;
    at = now;
  };
  client.exec('BEGIN IMMEDIATE');
  const planned = planCreates(
    bodies.map((b) => ({ ...b, source: 'outbound' as const })),
    Date.now(),
  );
  lap('plan');
  insertPlanned(db, { ...planned, units: [], features: [] });
  lap('property');
  if (unitsAsBefore) insertUnitsInChunks(planned.units);
  else if (perRowUnitLog) insertUnitRows(client, planned.units);
  else insertPlanned(db, { ...planned, properties: [], features: [] });
  lap('units');
  const rows = client.query<PropertyRecord, [string]>(RECORDS).all(JSON.stringify(planned.ids));
  lap('readBack');
  appendEvents(db, createdEventsOf(planned.created, rows));
  lap('events');
  client.exec('COMMIT');
  lap('commit');
  return times;
}

/** CPU and wall µs per create of one batch through the whole pipeline. */
async function httpBatch(): Promise<number> {
  const start = process.cpuUsage();
  const responses = await Promise.all(
    Array.from({ length: batchSize }, () =>
      fetch(
        new Request(`${BASE}/listings/properties`, {
          method: 'POST',
          headers: { authorization: `Bearer ${employee}`, 'content-type': 'application/json' },
          body: JSON.stringify(body()),
        }),
      ),
    ),
  );
  for (const response of responses) {
    if (response.status !== 201) throw new Error(`create answered ${response.status}`);
  }
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

/** The triggers on a property or unit insert, each variant without one of them. */
const triggerSql = (name: string) =>
  client.query<{ sql: string }, [string]>('SELECT sql FROM sqlite_master WHERE name = ?').get(name)!
    .sql;
const AFTER_INSERT = triggerSql('properties_after_insert');
const withoutLine = (sql: string, from: string, lines: number) => {
  const all = sql.split('\n');
  const index = all.findIndex((line) => line.includes(from));
  all.splice(index, lines);
  return all.join('\n');
};
const CACHE_PROPERTY = triggerSql('cache_log_properties_insert');
const CACHE_UNIT = triggerSql('cache_log_units_insert');
// The unit log as it was: one row per unit, whoever writes.
const CACHE_UNIT_PER_ROW = `CREATE TRIGGER cache_log_units_insert AFTER INSERT ON units BEGIN
  INSERT INTO cache_changes (topic, key) VALUES ('unit', new.property_id); END`;
const insertUnitRows = rowInserter(units, ['deletedAt']);
const UNIT_HEAD =
  'INSERT INTO units (id, property_id, rentable, published, created_at, updated_at) VALUES ';
/** The units as they went in before: 64 rows a statement, the rest in power-of-two chunks. */
function insertUnitsInChunks(rows: readonly PlannedUnit[]): void {
  const params = rows.flatMap((u) => [
    u.id,
    u.propertyId,
    Number(u.rentable),
    Number(u.published),
    u.createdAt,
    u.updatedAt,
  ]);
  let at = 0;
  for (let n = 64; n >= 1; n /= 2) {
    const size = n * 6;
    if (params.length - at < size) continue;
    const insert = client.query(UNIT_HEAD + Array(n).fill('(?, ?, ?, ?, ?, ?)').join(', '));
    for (; params.length - at >= size; at += size) insert.run(...params.slice(at, at + size));
  }
}
/** Variants whose units go in without the create's log marker (one log row per unit, or none). */
const BEFORE = 'before (per-unit log, chunks)';
const PER_ROW = new Set([BEFORE, 'no cache log (units)']);
let perRowUnitLog = false;
let unitsAsBefore = false;
const VARIANTS: Record<string, string[]> = {
  all: [AFTER_INSERT, CACHE_PROPERTY, CACHE_UNIT],
  [BEFORE]: [AFTER_INSERT, CACHE_PROPERTY, CACHE_UNIT_PER_ROW],
  'no FTS': [withoutLine(AFTER_INSERT, 'property_address_search', 1), CACHE_PROPERTY, CACHE_UNIT],
  'no counts': [withoutLine(AFTER_INSERT, 'property_counts', 3), CACHE_PROPERTY, CACHE_UNIT],
  'no cache log (property)': [AFTER_INSERT, CACHE_UNIT],
  'no cache log (units)': [AFTER_INSERT, CACHE_PROPERTY],
};
function useVariant(name: string): void {
  client.exec('BEGIN');
  for (const t of [
    'properties_after_insert',
    'cache_log_properties_insert',
    'cache_log_units_insert',
  ]) {
    client.exec(`DROP TRIGGER IF EXISTS ${t}`);
  }
  for (const sql of VARIANTS[name]!) client.exec(sql);
  client.exec('COMMIT');
  perRowUnitLog = PER_ROW.has(name);
  unitsAsBefore = name === BEFORE;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const parts: Record<string, Record<Part, number[]>> = {};
const http: number[] = [];
const parse: number[] = [];
for (let round = 0; round < rounds; round++) {
  const names = Object.keys(VARIANTS);
  if (round % 2) names.reverse();
  for (const name of names) {
    useVariant(name);
    parts[name] ??= Object.fromEntries(PARTS.map((p) => [p, []])) as unknown as Record<
      Part,
      number[]
    >;
    for (let i = 0; i < batches; i++) {
      const times = writeBatch();
      for (const p of PARTS) parts[name]![p].push((times[p] * 1000) / batchSize);
    }
  }
  useVariant('all');
  for (let i = 0; i < batches; i++) http.push((await httpBatch()) * (1000 / batchSize));
  const texts = Array.from({ length: 1000 }, () => JSON.stringify(body()));
  const start = performance.now();
  for (const text of texts) PropertyCreate.parse(JSON.parse(text));
  parse.push(performance.now() - start);
}

const fmt = (n: number) => n.toFixed(1).padStart(7);
const count = client.query<{ n: number }, []>('SELECT count(*) AS n FROM properties').get()!.n;
console.log(`${count} properties; batches of ${batchSize}; CPU µs per create (medians)`);
console.log(`${'variant'.padEnd(26)}${PARTS.map((p) => p.padStart(9)).join('')}    total`);
for (const [name, byPart] of Object.entries(parts)) {
  const medians = PARTS.map((p) => median(byPart[p]));
  const total = medians.reduce((a, b) => a + b, 0);
  console.log(
    `${name.padEnd(26)}${medians.map((m) => fmt(m).padStart(9)).join('')}  ${fmt(total)}`,
  );
}
console.log(`whole request (fetch, CPU µs per create): ${fmt(median(http))}`);
console.log(`JSON.parse + zod of one body: ${fmt(median(parse))} µs`);
client.close();
rmSync(dir, { recursive: true, force: true });
