import { Database } from 'bun:sqlite';
import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { tempDir } from '../support/harness';
import {
  employeeToken,
  freePort,
  JWT_SECRET,
  pool,
  randomProperty,
  seeded,
  startServer,
} from './support';

/**
 * Durability at the socket: a burst of POST /listings/properties
 * from several clients, the server killed with SIGKILL in the middle,
 * restarted on the same file. Every property acknowledged with 201 must be
 * there, whole; none may be half-written; a retry with the same
 * Idempotency-Key must never create a second property.
 */

const TOTAL = 500;
const CLIENTS = 8;
/** SIGKILL once this many responses have come back: mid-burst. */
const KILL_AFTER = 200;

interface Sent {
  key: string;
  body: ReturnType<typeof randomProperty>;
  /** 201's property id; undefined while unanswered or when the connection died. */
  id?: string;
  status?: number;
  /** Sent before the kill (its answer may have been lost with the server). */
  tried?: boolean;
}

const getJson = async <T>(base: string, path: string, token: string) => {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as T };
};

test('SIGKILL mid-burst: every 201 survives whole, nothing half-written, no duplicate on retry', async () => {
  const dir = tempDir('listings-crash-');
  const env = {
    ...{ DATABASE_PATH: join(dir, 'app.db'), JWT_SECRET, WORKERS: 'off' },
    // 500 creates of up to 30 units each in a few seconds: more than the default write budget.
    RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE: '1000000',
  };
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const token = await employeeToken();
  const random = seeded(9);
  const sent: Sent[] = Array.from({ length: TOTAL }, (_, i) => ({
    key: `crash-${i}`,
    body: randomProperty(random, `Crash street ${i}`),
  }));

  const post = (request: Sent) =>
    fetch(`${base}/listings/properties`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': request.key,
      },
      body: JSON.stringify(request.body),
    });

  // 1. The burst, and the kill in its middle.
  const started = performance.now();
  let server = await startServer(port, env);
  let answered = 0;
  let killed = false;
  await pool(
    TOTAL,
    CLIENTS,
    async (i) => {
      const request = sent[i]!;
      request.tried = true;
      try {
        const res = await post(request);
        await res.arrayBuffer();
        request.status = res.status;
        if (res.status === 201) request.id = res.headers.get('location')!.split('/').pop()!;
        if (++answered === KILL_AFTER) {
          server.kill('SIGKILL');
          killed = true;
        }
      } catch {
        // The connection died with the server: no answer, the outcome is unknown.
      }
    },
    () => killed,
  );
  await server.exited;
  expect(server.signalCode).toBe('SIGKILL');
  const acknowledged = sent.filter((r) => r.status === 201);
  const unanswered = sent.filter((r) => r.status === undefined);
  expect(sent.filter((r) => r.status !== undefined && r.status !== 201)).toEqual([]);
  expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);
  expect(unanswered.length).toBeGreaterThan(0);
  const burstMs = performance.now() - started;

  // 2. Restart on the same file: no manual step, health answers 200.
  server = await startServer(port, env);
  try {
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', database: 'ok' });

    // 3. Every acknowledged property is there, as sent, with its units and counter.
    await pool(acknowledged.length, CLIENTS, async (i) => {
      const { id, body } = acknowledged[i]!;
      const property = await getJson<Record<string, unknown>>(
        base,
        `/listings/properties/${id}`,
        token,
      );
      expect([id, property.status]).toEqual([id, 200]);
      expect(property.body).toMatchObject({
        id,
        type: body.type,
        ownerId: body.ownerId,
        totalUnits: body.totalUnits,
        rentableUnits: body.rentableUnits,
        location: { addressLine1: body.location.addressLine1 },
      });
      const units = await getJson<{ total: number }>(
        base,
        `/listings/properties/${id}/units`,
        token,
      );
      expect([id, units.body.total]).toEqual([id, body.totalUnits]);
      const counter = await getJson<{ unitsCounter: number }>(
        base,
        `/listings/multi-listing-units/${id}`,
        token,
      );
      expect([id, counter.body.unitsCounter]).toEqual([id, body.totalUnits]);
    });

    // 4. Retrying what got no answer, with the same key and body, never makes a second
    // property: the stored response is replayed (201, same Location), or the request is
    // processed for the first time (201), or, when the kill fell between the key's claim
    // and its stored response, the abandoned claim answers 409 (until the key expires:
    // whether the property was written is then unknown, so it is never written twice).
    const retries: Record<string, number> = {};
    for (const request of unanswered) {
      const res = await post(request);
      await res.arrayBuffer();
      const replayed = res.headers.get('idempotent-replayed') ? ' replayed' : '';
      const outcome = `${request.tried ? 'in flight' : 'unsent'} → ${res.status}${replayed}`;
      retries[outcome] = (retries[outcome] ?? 0) + 1;
      // Never sent: processed now. Sent before the kill: replayed, processed now, or 409.
      const allowed = request.tried ? ['201', '201 replayed', '409'] : ['201'];
      expect([request.key, allowed.includes(`${res.status}${replayed}`)]).toEqual([
        request.key,
        true,
      ]);
    }
    console.log(
      `crash: ${acknowledged.length} acknowledged, ${unanswered.length} unanswered ` +
        `of ${TOTAL} in ${Math.round(burstMs)} ms; retries after restart: ${JSON.stringify(retries)}`,
    );
  } finally {
    server.kill('SIGTERM');
    await server.exited;
  }
  expect(server.exitCode).toBe(0);

  // 5. The file itself: intact, and no property half-written.
  const db = new Database(env.DATABASE_PATH);
  try {
    expect(db.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    expect(db.query('PRAGMA foreign_key_check').all()).toEqual([]);
    // Full-text address index consistent with the table (throws when not).
    db.run(
      "INSERT INTO property_address_search (property_address_search) VALUES ('integrity-check')",
    );
    // The read caches' log: every batch of creates that paused the per-unit
    // log ended the pause in its own transaction (the marker is followed by
    // the batch's closing row, naming one of its properties), and no pause
    // marker is left last by the batch the kill cut short.
    const unclosed = db.query(`SELECT count(*) AS n FROM cache_changes m
      WHERE m.topic = 'unit' AND m.key = '' AND NOT EXISTS (
        SELECT 1 FROM cache_changes c JOIN properties p ON p.id = c.key
        WHERE c.topic = 'unit'
          AND c.seq = (SELECT min(seq) FROM cache_changes WHERE seq > m.seq))`);
    expect(unclosed.get()).toEqual({ n: 0 });
    const last = db.query('SELECT topic, key FROM cache_changes ORDER BY seq DESC LIMIT 1');
    expect(last.get()).not.toEqual({ topic: 'unit', key: '' });

    const markers = db
      .query('SELECT address_line1 AS marker, count(*) AS n FROM properties GROUP BY 1')
      .all() as { marker: string; n: number }[];
    expect(markers.filter((m) => m.n > 1)).toEqual([]);
    const stored = new Set(markers.map((m) => m.marker));
    const lost = acknowledged.filter((r) => !stored.has(r.body.location.addressLine1));
    expect(lost).toEqual([]);
    expect(markers.length).toBeLessThanOrEqual(TOTAL);

    // Counters derived from the units, multi-listing counter = totalUnits, no unit orphaned.
    const halfWritten = db
      .query(
        `SELECT p.id, p.total_units, p.rentable_units, p.units_counter,
             (SELECT count(*) FROM units u WHERE u.property_id = p.id AND u.deleted_at IS NULL) AS live,
             (SELECT count(*) FROM units u WHERE u.property_id = p.id AND u.deleted_at IS NULL AND u.rentable = 1) AS rentable
           FROM properties p
           WHERE live <> p.total_units OR rentable <> p.rentable_units
             OR p.units_counter <> p.total_units OR p.published_units <> 0`,
      )
      .all();
    expect(halfWritten).toEqual([]);
    expect(
      db
        .query(
          'SELECT count(*) AS n FROM units WHERE property_id NOT IN (SELECT id FROM properties)',
        )
        .get(),
    ).toEqual({ n: 0 });

    // The outbox committed with the creates: one property.created per property, none without one.
    const unmatched = db
      .query(
        `SELECT p.id, (SELECT count(*) FROM events e WHERE e.type = 'property.created'
             AND e.resource_id = p.id) AS n FROM properties p WHERE n <> 1
         UNION ALL
         SELECT e.resource_id, 0 FROM events e WHERE e.type = 'property.created'
           AND e.resource_id NOT IN (SELECT id FROM properties)`,
      )
      .all();
    expect(unmatched).toEqual([]);

    // The per-filter count table that list totals are summed from matches the table.
    const drift = db
      .query(
        `SELECT * FROM (
             SELECT city_id, type, rentable_units, published, archived, count(*) AS n
             FROM properties GROUP BY 1, 2, 3, 4, 5) actual
           FULL JOIN (SELECT * FROM property_counts WHERE properties > 0) kept
             USING (city_id, type, rentable_units, published, archived)
           WHERE actual.n IS NOT kept.properties`,
      )
      .all();
    expect(drift).toEqual([]);

    // Every finished idempotency record points at a property that exists.
    const dangling = db
      .query(
        `SELECT key, headers FROM idempotency_keys WHERE status = 201
           AND json_extract(headers, '$.location') NOT IN (SELECT '/properties/' || id FROM properties)`,
      )
      .all();
    expect(dangling).toEqual([]);
  } finally {
    db.close();
  }
}, 120_000);
