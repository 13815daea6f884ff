CREATE TABLE "audit_quotas" (
	"key" text PRIMARY KEY NOT NULL,
	"window_ends_at" bigint NOT NULL,
	"events" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "count" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "last_at" bigint;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "counter_key" text;--> statement-breakpoint
CREATE INDEX "audit_quotas_window_ends_at_idx" ON "audit_quotas" USING btree ("window_ends_at");--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_counter_key_idx" ON "audit_events" USING btree ("counter_key");--> statement-breakpoint
-- Append-only, but for a counted event: its count may grow and its last
-- time move, nothing else of it changes (src/audit/counting.ts). json has
-- no equality, so details are compared as text.
CREATE OR REPLACE FUNCTION "audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF OLD."counter_key" IS NULL
		OR NEW."counter_key" IS DISTINCT FROM OLD."counter_key"
		OR NEW."count" < OLD."count"
		OR (NEW."id", NEW."at", NEW."action", NEW."actor_id", NEW."subject_id", NEW."target", NEW."ip", NEW."user_agent", NEW."request_id", NEW."details"::text)
			IS DISTINCT FROM (OLD."id", OLD."at", OLD."action", OLD."actor_id", OLD."subject_id", OLD."target", OLD."ip", OLD."user_agent", OLD."request_id", OLD."details"::text)
	THEN
		RAISE EXCEPTION 'audit_events is append-only';
	END IF;
	RETURN NEW;
END $$;
