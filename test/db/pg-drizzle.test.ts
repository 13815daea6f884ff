import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { eq } from 'drizzle-orm';
import { type BunSQLDatabase, drizzle } from 'drizzle-orm/bun-sql';
import { migratePostgres } from '@/db/pg/migrate';
import * as pgSchema from '@/db/pg/schema';
import {
  createTestDatabase,
  pgSuite,
  postgresAvailable,
  type TestDatabase,
} from '../support/postgres';

/**
 * Rows written and read through drizzle's bun-sql driver with the PostgreSQL
 * schema come back as the SQLite schema gives them: dates for timestamp_ms
 * columns, numbers for epoch-ms and id columns, booleans, parsed JSON, Buffers.
 */
describe.skipIf(!postgresAvailable)(pgSuite('the PostgreSQL schema through drizzle'), () => {
  let database: TestDatabase;
  let client: SQL;
  let db: BunSQLDatabase<typeof pgSchema>;

  beforeAll(async () => {
    database = await createTestDatabase();
    await migratePostgres(database.url);
    client = new SQL(database.url, { max: 1 });
    db = drizzle({ client, schema: pgSchema, casing: 'snake_case' });
  });

  afterAll(async () => {
    await client?.close();
    await database?.drop();
  });

  test('happy: column types round-trip as the SQLite row types', async () => {
    const createdAt = new Date(1_700_000_000_123);
    await db
      .insert(pgSchema.users)
      .values({ id: 'u-1', email: 'a@example.com', passwordHash: 'h', role: 'customer' });
    const passkey = {
      id: 'pk-1',
      userId: 'u-1',
      credentialId: 'cred',
      publicKey: Buffer.from([0, 1, 2, 255]),
      counter: 3,
      transports: ['usb', 'nfc'],
      deviceType: 'multiDevice' as const,
      backedUp: true,
      name: 'Key',
      createdAt,
      lastUsedAt: null,
      aaguid: '00000000-0000-0000-0000-000000000000',
      provider: 'Passkey',
    };
    await db.insert(pgSchema.passkeys).values(passkey);
    const [read] = await db
      .select()
      .from(pgSchema.passkeys)
      .where(eq(pgSchema.passkeys.id, 'pk-1'));
    expect(read).toEqual(passkey);
    const [user] = await db.select().from(pgSchema.users);
    // The database's default: now, in epoch milliseconds, read as a Date.
    expect(user?.createdAt).toBeInstanceOf(Date);
    expect(Math.abs(user!.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
  });

  test('happy: integer keys are assigned when left out, as SQLite assigns the rowid', async () => {
    const rows = await db
      .insert(pgSchema.events)
      .values([
        { type: 'a', occurredAt: new Date(1), resourceKind: 'k', resourceId: '1', data: '{}' },
        { type: 'b', occurredAt: new Date(2), resourceKind: 'k', resourceId: '2', data: '{}' },
      ])
      .returning({ id: pgSchema.events.id });
    expect(rows).toEqual([{ id: 1 }, { id: 2 }]);
  });
});
