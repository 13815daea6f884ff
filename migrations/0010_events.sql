CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`occurred_at` integer NOT NULL,
	`resource_kind` text NOT NULL,
	`resource_id` text NOT NULL,
	`owner_id` text,
	`data` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_owner_id` ON `events` (`owner_id`,`id`);--> statement-breakpoint
CREATE INDEX `events_occurred_at` ON `events` (`occurred_at`);