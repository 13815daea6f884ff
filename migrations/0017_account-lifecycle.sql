CREATE TABLE `token_cutoffs` (
	`subject` text PRIMARY KEY NOT NULL,
	`valid_after` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `users` ADD `disabled_at` integer;