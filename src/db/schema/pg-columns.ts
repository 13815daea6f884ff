import { bigint, customType } from 'drizzle-orm/pg-core';

/**
 * Epoch milliseconds read and written as a `Date`: the PostgreSQL twin of
 * SQLite's `integer({ mode: 'timestamp_ms' })`, stored as the same number
 * (not `timestamptz`) so a copied row keeps its exact value and both stores
 * hand the service the same row types.
 */
export const epochMs = customType<{ data: Date; driverData: number | string | bigint }>({
  dataType: () => 'bigint',
  toDriver: (value) => value.getTime(),
  fromDriver: (value) => new Date(Number(value)),
});

/** Epoch milliseconds kept as a number (SQLite `integer()` times): past the range of int4. */
export const epochMsNumber = () => bigint({ mode: 'number' });

/** Binary data (SQLite `blob({ mode: 'buffer' })`); drizzle's pg-core has no bytea column. */
export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => Buffer.from(value),
});

/**
 * An integer key the database assigns when the insert leaves it out, as a
 * SQLite `INTEGER PRIMARY KEY` does; "by default" so a copy can keep the ids
 * it brings (the copy then moves the sequence past them).
 */
export const serialKey = () =>
  bigint({ mode: 'number' }).primaryKey().generatedByDefaultAsIdentity();
