DROP INDEX "webhook_deliveries_due";--> statement-breakpoint
DROP INDEX "webhook_deliveries_resource";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "blocked" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "next_attempt_at" bigint;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "pending_deliveries" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "consecutive_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "slow" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_next" ON "webhook_deliveries" USING btree ("endpoint_id","next_attempt_at","id") WHERE status = 'pending' AND NOT blocked;--> statement-breakpoint
CREATE INDEX "webhook_endpoints_due" ON "webhook_endpoints" USING btree ("enabled","slow","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_resource" ON "webhook_deliveries" USING btree ("endpoint_id","resource","status","id");--> statement-breakpoint
UPDATE "webhook_deliveries" SET "blocked" = true WHERE "status" = 'pending' AND EXISTS (SELECT 1 FROM "webhook_deliveries" "p" WHERE "p"."endpoint_id" = "webhook_deliveries"."endpoint_id" AND "p"."resource" = "webhook_deliveries"."resource" AND "p"."status" = 'pending' AND "p"."id" < "webhook_deliveries"."id");--> statement-breakpoint
UPDATE "webhook_endpoints" SET "pending_deliveries" = (SELECT count(*) FROM "webhook_deliveries" "d" WHERE "d"."endpoint_id" = "webhook_endpoints"."id" AND "d"."status" = 'pending'), "next_attempt_at" = (SELECT min("d"."next_attempt_at") FROM "webhook_deliveries" "d" WHERE "d"."endpoint_id" = "webhook_endpoints"."id" AND "d"."status" = 'pending' AND NOT "d"."blocked");
