CREATE TABLE "token_cutoffs" (
	"subject" text PRIMARY KEY NOT NULL,
	"valid_after" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "disabled_at" bigint;