-- The read cache's change feed on PostgreSQL (src/db/pg/change-feed.ts).
-- `seq` is handed out when a row is written, not when its transaction
-- commits, so a reader cannot take "the rows after the last seq seen":
-- a transaction that took a lower seq may commit later. Each row instead
-- carries the id of the transaction that wrote it, and a reader asks for
-- the rows its previous snapshot could not see (pg_visible_in_snapshot).
-- Rows written before this migration are older than any reader's snapshot.
ALTER TABLE "cache_changes" ADD COLUMN "xid" xid8 NOT NULL DEFAULT '0'::xid8;
--> statement-breakpoint
ALTER TABLE "cache_changes" ALTER COLUMN "xid" SET DEFAULT pg_current_xact_id();
--> statement-breakpoint
CREATE INDEX "cache_changes_xid" ON "cache_changes" ("xid");
--> statement-breakpoint
-- The newest transaction whose rows the pruning removed: a reader whose
-- previous snapshot may not have seen that transaction (its id is at or
-- past the snapshot's xmin) has lost rows and drops every answer.
CREATE TABLE "cache_changes_pruned" (
	"only" boolean PRIMARY KEY DEFAULT true CHECK ("only"),
	"xid" xid8 NOT NULL
);
--> statement-breakpoint
INSERT INTO "cache_changes_pruned" ("xid") VALUES ('0'::xid8);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "cache_changes_prune"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	WITH "gone" AS (
		DELETE FROM "cache_changes" WHERE "seq" <= NEW."seq" - 8192 RETURNING "xid"
	)
	UPDATE "cache_changes_pruned" SET "xid" = greatest("cache_changes_pruned"."xid", "newest")
		FROM (SELECT max("xid") AS "newest" FROM "gone") AS "removed"
		WHERE "newest" IS NOT NULL;
	RETURN NULL;
END $$;
