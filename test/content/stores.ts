import { postgresContentStore } from '@/content/postgres-store';
import type { StaticPageWrite } from '@/content/store';
import { pgDatabase } from '@/db/pg/client';
import { postgresHealth } from '@/db/pg/health';
import * as pg from '@/db/pg/schema';
import type { StaticPageRow } from '@/db/sqlite/schema';
import * as lite from '@/db/sqlite/schema';
import { postgresIdempotencyStore } from '@/idempotency/postgres-store';
import type { KeyRow } from '@/idempotency/tables';
import { createTestApp } from '../support/harness';
import { type StoreUnderTest as StoreRun, storesUnderTestOf } from '../support/stores-under-test';
import { addPage, makePostgresPage } from './factory';

/**
 * The static-page and idempotency suites run once per store: each test's
 * app serves static pages, `Idempotency-Key` claims and the database health
 * check from the store under test through the production pipeline, the
 * other domains from the app's own SQLite file as always.
 */
export type StoreUnderTest = StoreRun<ContentTestApp>;

export type ContentTestApp = ReturnType<typeof createTestApp> & {
  /** Writes a page straight into the store's database (no event, no audit entry). */
  makePage(slug: string, overrides?: Partial<StaticPageWrite>): Promise<StaticPageRow>;
  /** Every stored idempotency key. */
  storedKeys(): Promise<KeyRow[]>;
  /** The stored events and audit actions, oldest first. */
  storedEvents(): Promise<{ type: string; resourceId: string }[]>;
  storedAuditActions(): Promise<string[]>;
};

const stores = storesUnderTestOf<ContentTestApp>({
  storesOn: (client) => ({
    content: postgresContentStore(client),
    idempotency: postgresIdempotencyStore(client),
    health: postgresHealth(client),
  }),
  cachedOnPostgres: true,
  sqlite(options) {
    const ctx = createTestApp(options);
    return {
      ...ctx,
      makePage: async (slug, overrides) => addPage(ctx, slug, overrides),
      storedKeys: async () => ctx.db.select().from(lite.idempotencyKeys).all(),
      storedEvents: async () =>
        ctx.db
          .select({ type: lite.events.type, resourceId: lite.events.resourceId })
          .from(lite.events)
          .orderBy(lite.events.id)
          .all(),
      storedAuditActions: async () =>
        ctx.db
          .select({ action: lite.auditEvents.action })
          .from(lite.auditEvents)
          .orderBy(lite.auditEvents.id)
          .all()
          .map((row) => row.action),
    };
  },
  postgres(options, { client }) {
    const db = pgDatabase(client);
    const ctx = createTestApp(options);
    return {
      ...ctx,
      makePage: (slug, overrides) => makePostgresPage(client, slug, overrides),
      storedKeys: async () => db.select().from(pg.idempotencyKeys),
      storedEvents: async () =>
        db
          .select({ type: pg.events.type, resourceId: pg.events.resourceId })
          .from(pg.events)
          .orderBy(pg.events.id),
      storedAuditActions: async () =>
        (
          await db
            .select({ action: pg.auditEvents.action })
            .from(pg.auditEvents)
            .orderBy(pg.auditEvents.id)
        ).map((row) => row.action),
    };
  },
});

/** SQLite, then PostgreSQL. */
export const storesUnderTest = stores.both;

/** A PostgreSQL store under test of its own (its databases dropped when its `describe` ends). */
export const postgresUnderTest = stores.postgres;
