CREATE TABLE `audit_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`action` text NOT NULL,
	`actor_id` text,
	`subject_id` text,
	`target` text,
	`ip` text,
	`user_agent` text,
	`request_id` text,
	`details` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_events_subject_id_idx` ON `audit_events` (`subject_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_actor_id_idx` ON `audit_events` (`actor_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_action_idx` ON `audit_events` (`action`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_at_idx` ON `audit_events` (`at`);--> statement-breakpoint
ALTER TABLE `passkeys` ADD `aaguid` text DEFAULT '00000000-0000-0000-0000-000000000000' NOT NULL;--> statement-breakpoint
ALTER TABLE `passkeys` ADD `provider` text DEFAULT 'Passkey' NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `last_seen_at` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `ip` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `user_agent` text;--> statement-breakpoint
-- Append-only: an event is never changed once written (the retention job
-- only deletes events older than AUDIT_RETENTION_DAYS).
CREATE TRIGGER `audit_events_append_only` BEFORE UPDATE ON `audit_events` BEGIN
	SELECT RAISE(ABORT, 'audit_events is append-only');
END;
