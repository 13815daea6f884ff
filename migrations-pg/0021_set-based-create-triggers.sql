-- Creates write many rows a statement (a property and its 1 to 30 units, or
-- a group commit's properties); a row trigger ran PL/pgSQL once a row for
-- the counts and the change log. These statement triggers read the rows a
-- statement inserted or deleted (transition tables) and write the same
-- counts and log with one statement each: one 'property' row per property
-- as before, one 'unit' row per statement (its key is not read,
-- src/db/read-cache-tags.ts) and one 'feature' row per distinct name.
-- Updates keep their row triggers (a transition table cannot be limited to
-- the updated columns those triggers watch).
CREATE FUNCTION "property_counts_follow_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		UPDATE "property_counts" AS "c" SET "properties" = "c"."properties" - "g"."n"
			FROM (SELECT "city_id", "type", "rentable_units", "published", "archived", count(*) AS "n"
				FROM "changed" GROUP BY 1, 2, 3, 4, 5) AS "g"
			WHERE "c"."city_id" = "g"."city_id" AND "c"."type" = "g"."type"
				AND "c"."rentable_units" = "g"."rentable_units" AND "c"."published" = "g"."published"
				AND "c"."archived" = "g"."archived";
	ELSE
		-- Grouped and ordered, so each counts row is locked once and in one order by every writer.
		INSERT INTO "property_counts" AS "c" ("city_id", "type", "rentable_units", "published", "archived", "properties")
			SELECT "city_id", "type", "rentable_units", "published", "archived", count(*)
				FROM "changed" GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
			ON CONFLICT ("city_id", "type", "rentable_units", "published", "archived")
			DO UPDATE SET "properties" = "c"."properties" + excluded."properties";
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER "properties_after_insert" ON "properties";
--> statement-breakpoint
DROP TRIGGER "properties_after_delete" ON "properties";
--> statement-breakpoint
CREATE TRIGGER "properties_after_insert" AFTER INSERT ON "properties"
	REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "property_counts_follow_rows"();
--> statement-breakpoint
CREATE TRIGGER "properties_after_delete" AFTER DELETE ON "properties"
	REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "property_counts_follow_rows"();
--> statement-breakpoint
CREATE FUNCTION "cache_log_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	sep constant text := chr(31);
BEGIN
	IF TG_TABLE_NAME = 'properties' THEN
		INSERT INTO "cache_changes" ("topic", "key")
			SELECT 'property', "id" || sep || "owner_id" || sep || "city_id" || sep || "type" FROM "changed";
	ELSIF TG_TABLE_NAME = 'units' THEN
		INSERT INTO "cache_changes" ("topic", "key")
			SELECT 'unit', "property_id" FROM "changed" LIMIT 1;
	ELSIF TG_TABLE_NAME = 'unit_features' THEN
		INSERT INTO "cache_changes" ("topic", "key")
			SELECT DISTINCT 'feature', "name" FROM "changed";
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER "cache_log_properties" ON "properties";
--> statement-breakpoint
CREATE TRIGGER "cache_log_properties_update" AFTER UPDATE ON "properties"
	FOR EACH ROW EXECUTE FUNCTION "cache_log"();
--> statement-breakpoint
CREATE TRIGGER "cache_log_properties_insert" AFTER INSERT ON "properties"
	REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_log_rows"();
--> statement-breakpoint
CREATE TRIGGER "cache_log_properties_delete" AFTER DELETE ON "properties"
	REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_log_rows"();
--> statement-breakpoint
DROP TRIGGER "cache_log_units_insert_delete" ON "units";
--> statement-breakpoint
CREATE TRIGGER "cache_log_units_insert" AFTER INSERT ON "units"
	REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_log_rows"();
--> statement-breakpoint
CREATE TRIGGER "cache_log_units_delete" AFTER DELETE ON "units"
	REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_log_rows"();
--> statement-breakpoint
DROP TRIGGER "cache_log_unit_features" ON "unit_features";
--> statement-breakpoint
CREATE TRIGGER "cache_log_unit_features_update" AFTER UPDATE ON "unit_features"
	FOR EACH ROW EXECUTE FUNCTION "cache_log"();
--> statement-breakpoint
CREATE TRIGGER "cache_log_unit_features_insert" AFTER INSERT ON "unit_features"
	REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_log_rows"();
--> statement-breakpoint
CREATE TRIGGER "cache_log_unit_features_delete" AFTER DELETE ON "unit_features"
	REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "cache_log_rows"();
