CREATE TABLE `audit_quotas` (
	`key` text PRIMARY KEY NOT NULL,
	`window_ends_at` integer NOT NULL,
	`events` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_quotas_window_ends_at_idx` ON `audit_quotas` (`window_ends_at`);--> statement-breakpoint
ALTER TABLE `audit_events` ADD `count` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `audit_events` ADD `last_at` integer;--> statement-breakpoint
ALTER TABLE `audit_events` ADD `counter_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `audit_events_counter_key_idx` ON `audit_events` (`counter_key`);--> statement-breakpoint
-- Append-only, but for a counted event: its count may grow and its last
-- time move, nothing else of it changes (src/audit/counting.ts).
DROP TRIGGER `audit_events_append_only`;--> statement-breakpoint
CREATE TRIGGER `audit_events_append_only` BEFORE UPDATE ON `audit_events`
WHEN OLD.`counter_key` IS NULL
	OR NEW.`counter_key` IS NOT OLD.`counter_key`
	OR NEW.`count` < OLD.`count`
	OR NEW.`id` IS NOT OLD.`id`
	OR NEW.`at` IS NOT OLD.`at`
	OR NEW.`action` IS NOT OLD.`action`
	OR NEW.`actor_id` IS NOT OLD.`actor_id`
	OR NEW.`subject_id` IS NOT OLD.`subject_id`
	OR NEW.`target` IS NOT OLD.`target`
	OR NEW.`ip` IS NOT OLD.`ip`
	OR NEW.`user_agent` IS NOT OLD.`user_agent`
	OR NEW.`request_id` IS NOT OLD.`request_id`
	OR NEW.`details` IS NOT OLD.`details`
BEGIN
	SELECT RAISE(ABORT, 'audit_events is append-only');
END;
