ALTER TABLE "job_runs" ADD COLUMN "instance" text;--> statement-breakpoint
ALTER TABLE "job_runs" ADD COLUMN "tick" bigint;