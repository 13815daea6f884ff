CREATE TABLE "usage_buckets" (
	"resolution" text NOT NULL,
	"series" text NOT NULL,
	"start" bigint NOT NULL,
	"instance" text NOT NULL,
	"requests" integer NOT NULL,
	"errors" integer NOT NULL,
	"latency" json NOT NULL,
	CONSTRAINT "usage_buckets_resolution_series_start_instance_pk" PRIMARY KEY("resolution","series","start","instance")
);
--> statement-breakpoint
CREATE INDEX "usage_buckets_resolution_start" ON "usage_buckets" USING btree ("resolution","start");