/**
 * The reference implementation `bun run bench:reference` measures the
 * service against: the same endpoints on Node with Fastify and
 * better-sqlite3, written the usual way (prepared statements, WAL, the
 * indexes of schema.sql, JSON schemas for bodies and answers, an in-memory
 * limiter, one log line a request) and nothing more.
 *
 *   GET  /listings/properties/:id  the property, as the service answers it
 *   POST /listings/properties      a property and its 1..30 units in one transaction
 *   GET  /api/v1/tokens/limits     the caller's window of the in-memory limiter
 *
 * Every request carries a bearer JWT (HS256, JWT_SECRET), verified with
 * node:crypto. Environment: PORT, HOST, DATABASE_PATH, JWT_SECRET,
 * RATE_LIMIT_EMPLOYEE_PER_MINUTE, RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE, LOG_LEVEL.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import Fastify, { LogController } from 'fastify';

const env = process.env;
const db = new Database(env.DATABASE_PATH ?? 'reference.db');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma('cache_size = -65536');
db.exec(readFileSync(new URL('schema.sql', import.meta.url), 'utf8'));

const selectProperty = db.prepare(
  `SELECT id, type, owner_id, address_line1, address_line2, city, city_id, neighbourhood_id,
     postal_code, country, latitude, longitude, total_units, rentable_units, published_units,
     verified, year_of_construction, is_visitable, source, published, archived, created_at,
     updated_at
   FROM properties WHERE id = ?`,
);
const insertProperty = db.prepare(
  `INSERT INTO properties (id, type, owner_id, address_line1, address_line2, city, city_id,
     postal_code, country, latitude, longitude, total_units, rentable_units, year_of_construction,
     is_visitable, source, created_at, updated_at)
   VALUES (@id, @type, @ownerId, @addressLine1, @addressLine2, @city, @cityId, @postalCode,
     @country, @latitude, @longitude, @totalUnits, @rentableUnits, @yearOfConstruction,
     @isVisitable, 'outbound', @now, @now)`,
);
const insertUnit = db.prepare(
  `INSERT INTO units (id, property_id, rentable, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
);
const countries = new Map(
  db
    .prepare('SELECT id, country FROM cities')
    .all()
    .map((row) => [row.id, row.country]),
);
const cityIds = [...countries.keys()];

/** A UUIDv7: the millisecond time first, so new rows append to the primary key's index. */
function uuidv7(now) {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const createProperty = db.transaction((body, id, now) => {
  const totalUnits = body.totalUnits ?? 1;
  const rentableUnits = body.rentableUnits ?? totalUnits;
  const { location } = body;
  insertProperty.run({
    id,
    type: body.type,
    ownerId: body.ownerId,
    addressLine1: location.addressLine1,
    addressLine2: location.addressLine2 ?? null,
    city: location.city,
    cityId: location.cityId,
    postalCode: location.postalCode,
    country: countries.get(location.cityId),
    latitude: location.latitude,
    longitude: location.longitude,
    totalUnits,
    rentableUnits,
    yearOfConstruction: body.yearOfConstruction ?? null,
    isVisitable: body.isVisitable ? 1 : 0,
    now,
  });
  for (let n = 0; n < totalUnits; n++) {
    insertUnit.run(uuidv7(now), id, n < rentableUnits ? 1 : 0, now, now);
  }
});

function toProperty(row) {
  const location = {
    addressLine1: row.address_line1,
    addressLine2: row.address_line2 ?? undefined,
    city: row.city,
    cityId: row.city_id,
    neighbourhoodId: row.neighbourhood_id,
    postalCode: row.postal_code,
    country: row.country,
    latitude: row.latitude,
    longitude: row.longitude,
  };
  return {
    id: row.id,
    type: row.type,
    location,
    ownerId: row.owner_id,
    totalUnits: row.total_units,
    rentableUnits: row.rentable_units,
    publishedUnits: row.published_units,
    verified: row.verified === 1,
    yearOfConstruction: row.year_of_construction ?? undefined,
    isVisitable: row.is_visitable === 1,
    source: row.source,
    archived: row.archived === 1,
    published: row.published === 1,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

// Bearer JWTs: HS256 only, `exp` in the future, `sub` and `aud` present.
const key = Buffer.from(env.JWT_SECRET ?? '', 'utf8');
const HS256_HEADER = /"alg"\s*:\s*"HS256"/;

function callerOf(authorization) {
  if (!authorization?.startsWith('Bearer ')) return undefined;
  const parts = authorization.slice(7).split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts;
  if (!HS256_HEADER.test(Buffer.from(header, 'base64url').toString('utf8'))) return undefined;
  const expected = createHmac('sha256', key).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let claims;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof claims.exp !== 'number' || claims.exp * 1000 <= Date.now()) return undefined;
  if (typeof claims.sub !== 'string' || claims.sub === '') return undefined;
  const aud = Array.isArray(claims.aud) ? claims.aud[0] : claims.aud;
  if (aud !== 'employee' && aud !== 'customer') return undefined;
  return { sub: claims.sub, aud };
}

// The in-memory limiter: a fixed one-minute window per caller, requests and
// written units counted apart.
const WINDOW_MS = 60_000;
const requestLimit = Number(env.RATE_LIMIT_EMPLOYEE_PER_MINUTE ?? 5000);
const writeLimit = Number(env.RATE_LIMIT_EMPLOYEE_WRITES_PER_MINUTE ?? 5000);
const windows = new Map();

function windowOf(sub, now) {
  let window = windows.get(sub);
  if (!window || window.resetsAt <= now) {
    window = { resetsAt: now - (now % WINDOW_MS) + WINDOW_MS, requests: 0, writes: 0 };
    windows.set(sub, window);
  }
  return window;
}

const problem = (reply, status, title, detail) =>
  reply
    .code(status)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html',
        title,
        status,
        detail,
      }),
    );

const app = Fastify({
  logger: { level: env.LOG_LEVEL ?? 'info' },
  logController: new LogController({ disableRequestLogging: true }),
});

// Declared up front, so every request object has the same shape.
app.decorateRequest('caller', null);
app.decorateRequest('window', null);

app.addHook('onRequest', async (request, reply) => {
  const caller = callerOf(request.headers.authorization);
  if (!caller) return problem(reply, 401, 'Unauthorized', 'Unauthorized user');
  const now = Date.now();
  const window = windowOf(caller.sub, now);
  // The limits report is free: it only looks.
  if (request.url !== '/api/v1/tokens/limits') window.requests++;
  reply.header('x-ratelimit-limit', requestLimit);
  reply.header('x-ratelimit-remaining', Math.max(0, requestLimit - window.requests));
  reply.header('x-ratelimit-reset', Math.ceil(window.resetsAt / 1000));
  if (window.requests > requestLimit) {
    return problem(reply, 429, 'Too Many Requests', 'Rate limit exceeded');
  }
  request.caller = caller;
  request.window = window;
});

// One line a request, as the service logs.
app.addHook('onResponse', async (request, reply) => {
  request.log.info(
    { method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime },
    'request',
  );
});

const text = { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' };
const unitCount = { type: 'integer', minimum: 1, maximum: 30 };
const locationFields = {
  addressLine1: text,
  addressLine2: text,
  city: text,
  postalCode: { ...text, maxLength: 32 },
  latitude: { type: 'number', minimum: -90, maximum: 90 },
  longitude: { type: 'number', minimum: -180, maximum: 180 },
};

app.post(
  '/listings/properties',
  {
    schema: {
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'ownerId', 'location'],
        properties: {
          type: { enum: ['apartment', 'studio', 'roomShared', 'residence'] },
          ownerId: text,
          location: {
            type: 'object',
            additionalProperties: false,
            required: ['addressLine1', 'city', 'cityId', 'postalCode', 'latitude', 'longitude'],
            properties: { ...locationFields, cityId: { enum: cityIds } },
          },
          yearOfConstruction: { type: 'integer', minimum: 1000, maximum: 2100 },
          isVisitable: { type: 'boolean' },
          totalUnits: unitCount,
          rentableUnits: unitCount,
        },
      },
    },
  },
  async (request, reply) => {
    const body = request.body;
    const units = body.totalUnits ?? 1;
    if ((body.rentableUnits ?? 0) > units) {
      return problem(reply, 422, 'Unprocessable Entity', 'rentableUnits above totalUnits');
    }
    const { window } = request;
    window.writes += units;
    if (window.writes > writeLimit) {
      return problem(reply, 429, 'Too Many Requests', 'Write limit exceeded');
    }
    const now = Date.now();
    const id = uuidv7(now);
    createProperty(body, id, now);
    return reply.code(201).header('location', `/properties/${id}`).send();
  },
);

// The answer's fields in the service's order, so both send the same bytes.
const string = { type: 'string' };
const number = { type: 'number' };
const locationAnswer = {
  type: 'object',
  properties: {
    addressLine1: string,
    addressLine2: string,
    city: string,
    cityId: string,
    neighbourhoodId: { type: ['string', 'null'] },
    postalCode: string,
    country: string,
    latitude: number,
    longitude: number,
  },
};
const propertyAnswer = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    type: { type: 'string' },
    location: locationAnswer,
    ownerId: { type: 'string' },
    totalUnits: { type: 'integer' },
    rentableUnits: { type: 'integer' },
    publishedUnits: { type: 'integer' },
    verified: { type: 'boolean' },
    yearOfConstruction: { type: 'integer' },
    isVisitable: { type: 'boolean' },
    source: { type: 'string' },
    archived: { type: 'boolean' },
    published: { type: 'boolean' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
};

app.get(
  '/listings/properties/:id',
  { schema: { response: { 200: propertyAnswer } } },
  async (request, reply) => {
    const row = selectProperty.get(request.params.id);
    if (!row) return problem(reply, 404, 'Not Found', 'The resource was not found');
    return toProperty(row);
  },
);

const limitsAnswer = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    rate_limits: {
      type: 'object',
      properties: {
        audience: { type: 'string' },
        plan: {
          type: 'object',
          properties: {
            id: { type: 'integer' },
            name: { type: 'string' },
            slug: { type: 'string' },
          },
        },
        limits: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              window: { type: 'string' },
              limit: { type: 'integer' },
              used: { type: 'integer' },
              remaining: { type: 'integer' },
              resets_in_seconds: { type: 'integer' },
              resets_at: { type: 'string' },
            },
          },
        },
      },
    },
  },
};
const PLANS = {
  employee: { id: 2, name: 'Employee', slug: 'employee' },
  customer: { id: 1, name: 'Customer', slug: 'customer' },
};

app.get('/api/v1/tokens/limits', { schema: { response: { 200: limitsAnswer } } }, (request) => {
  const { caller, window } = request;
  const now = Date.now();
  return {
    message: 'Rate limits retrieved successfully.',
    rate_limits: {
      audience: caller.aud,
      plan: PLANS[caller.aud],
      limits: [
        {
          window: 'minute',
          limit: requestLimit,
          used: window.requests,
          remaining: Math.max(0, requestLimit - window.requests),
          resets_in_seconds: Math.ceil((window.resetsAt - now) / 1000),
          resets_at: `${new Date(window.resetsAt).toISOString().slice(0, 19)}+00:00`,
        },
      ],
    },
  };
});

await app.listen({ port: Number(env.PORT ?? 3200), host: env.HOST ?? '127.0.0.1' });
