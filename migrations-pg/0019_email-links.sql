CREATE TABLE "email_links" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"purpose" text NOT NULL,
	"email" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "email_unverified" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "email_links" ADD CONSTRAINT "email_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_links_user_id_idx" ON "email_links" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "email_links_expires_at_idx" ON "email_links" USING btree ("expires_at");