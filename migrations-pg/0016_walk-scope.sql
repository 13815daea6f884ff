ALTER TABLE "property_sort_changes" ADD COLUMN "new_owner_id" text;--> statement-breakpoint
CREATE INDEX "property_sort_changes_owner_idx" ON "property_sort_changes" USING btree ("owner_id","feed_position");--> statement-breakpoint
CREATE INDEX "property_sort_changes_new_owner_idx" ON "property_sort_changes" USING btree ("new_owner_id","feed_position") WHERE "property_sort_changes"."new_owner_id" IS NOT NULL;--> statement-breakpoint
-- A walk confined to one owner (a customer's, or one filtered by owner)
-- counts and reads only the changes of that owner's properties, on the two
-- owner indexes (src/listings/properties/walk-order.ts). A write moving a
-- property to another owner concerns the walks of both: the row keeps the
-- owner it had and names the one it went to.
CREATE OR REPLACE FUNCTION "property_sort_changes_record"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "property_sort_changes" ("property_id", "type", "owner_id", "total_units", "rentable_units", "new_owner_id")
		VALUES (OLD."id", OLD."type", OLD."owner_id", OLD."total_units", OLD."rentable_units",
			CASE WHEN OLD."owner_id" IS DISTINCT FROM NEW."owner_id" THEN NEW."owner_id" END);
	RETURN NULL;
END $$;
--> statement-breakpoint
-- The rows kept before: the owner after each is the one its property's next
-- change kept or, after its last, the property's owner now.
UPDATE "property_sort_changes" c SET "new_owner_id" = nullif(coalesce(
	(SELECT n."owner_id" FROM "property_sort_changes" n
		WHERE n."property_id" = c."property_id" AND n."id" > c."id" ORDER BY n."id" LIMIT 1),
	(SELECT p."owner_id" FROM "properties" p WHERE p."id" = c."property_id")),
	c."owner_id");
