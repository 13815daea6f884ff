import type { SQL } from 'bun';
import { and, asc, eq, sql } from 'drizzle-orm';
import { auditRowOf } from '@/audit/record';
import type { PageTables } from '@/content/tables';
import { type PgTx, pgDatabase } from '@/db/pg/client';
import { auditEvents, staticPages } from '@/db/pg/schema';
import { announcedAfter, appendEvents } from '@/events/postgres-outbox';
import { runLater, type Steps } from '@/kernel/steps';
import { pageWrites } from './operations';
import { entryColumnsOf, summaryColumnsOf, toEntry, toSummary } from './representation';
import type { ContentStore } from './store';

const ofSlugAndLanguage = (slug: string, language: string) =>
  and(eq(staticPages.slug, slug), eq(staticPages.language, language));

/** The page queries inside one PostgreSQL transaction (READ COMMITTED). */
const postgresPageTables = (tx: PgTx): PageTables => ({
  async lockPages() {
    // Conflicts with itself and with every other write to static_pages, not
    // with reads: two writes of one new slug and language run one after the
    // other, so the second finds the first's row and replaces it instead of
    // failing on the unique index; their events take ids in commit order.
    await tx.execute(sql`LOCK TABLE static_pages IN SHARE ROW EXCLUSIVE MODE`);
  },
  async pageId(slug, language) {
    const [found] = await tx
      .select({ id: staticPages.id })
      .from(staticPages)
      .where(ofSlugAndLanguage(slug, language));
    return found?.id;
  },
  async page(slug, language) {
    const [found] = await tx.select().from(staticPages).where(ofSlugAndLanguage(slug, language));
    return found;
  },
  async updatePage(id, values) {
    const [row] = await tx
      .update(staticPages)
      .set(values)
      .where(eq(staticPages.id, id))
      .returning();
    return row!;
  },
  async insertPage(values) {
    const [row] = await tx.insert(staticPages).values(values).returning();
    return row!;
  },
  async deletePages(slug, language) {
    const removed = await tx
      .delete(staticPages)
      .where(ofSlugAndLanguage(slug, language))
      .returning({ id: staticPages.id });
    return removed.map(({ id }) => id);
  },
  appendEvent: (event, now) => appendEvents(tx, [{ event, now }]),
  async recordAudit(context, entry) {
    await tx.insert(auditEvents).values(auditRowOf(context, entry));
  },
});

/**
 * The static pages on PostgreSQL (Bun's `SQL` client through drizzle's
 * `bun-sql` driver): the same operations, results and errors as
 * `sqliteContentStore`, every one a promise. The caller owns `client` and
 * closes it.
 */
export function postgresContentStore(client: SQL): ContentStore {
  const db = pgDatabase(client);
  const run = <T>(operation: (tables: PageTables) => Steps<T>): Promise<T> =>
    announcedAfter(db, (tx) => runLater(operation(postgresPageTables(tx))));

  // Built once: a page missed by the read cache is read without drizzle building its SQL again.
  const variantsOf = db
    .select()
    .from(staticPages)
    .where(and(eq(staticPages.slug, sql.placeholder('slug')), eq(staticPages.published, true)))
    .orderBy(asc(staticPages.id))
    .prepare('published_variants');

  return {
    publishedVariants: (slug) => variantsOf.execute({ slug }),
    async listPublished() {
      const rows = await db
        .select(summaryColumnsOf(staticPages))
        .from(staticPages)
        .where(eq(staticPages.published, true))
        .orderBy(asc(staticPages.id));
      return rows.map(toSummary);
    },
    // Awaited here: a drizzle query is a thenable, not the Promise `whenReady` waits for.
    async everyVariant(slug) {
      return await db
        .select()
        .from(staticPages)
        .where(eq(staticPages.slug, slug))
        .orderBy(asc(staticPages.id));
    },
    async listEvery(published) {
      const rows = await db
        .select(entryColumnsOf(staticPages))
        .from(staticPages)
        .where(published === undefined ? undefined : eq(staticPages.published, published))
        .orderBy(asc(staticPages.id));
      return rows.map(toEntry);
    },
    ...pageWrites(run),
  };
}
