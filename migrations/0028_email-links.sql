CREATE TABLE `email_links` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`purpose` text NOT NULL,
	`email` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `email_links_user_id_idx` ON `email_links` (`user_id`);--> statement-breakpoint
CREATE INDEX `email_links_expires_at_idx` ON `email_links` (`expires_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `email_unverified` integer DEFAULT false NOT NULL;