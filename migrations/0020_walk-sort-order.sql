CREATE TABLE `property_sort_changes` (
	`id` integer PRIMARY KEY NOT NULL,
	`property_id` text NOT NULL,
	`feed_position` integer NOT NULL,
	`type` text NOT NULL,
	`owner_id` text NOT NULL,
	`total_units` integer NOT NULL,
	`rentable_units` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `property_sort_changes_property_idx` ON `property_sort_changes` (`property_id`,`feed_position`);--> statement-breakpoint
CREATE INDEX `property_sort_changes_position_idx` ON `property_sort_changes` (`feed_position`);--> statement-breakpoint
-- A keyset walk sorted by a field a write can change keeps the order of the
-- snapshot it started from (src/listings/properties/walk-order.ts): each
-- write that changes a sort field keeps the fields as they were, placed in
-- the change feed. SQLite admits one writer, so the last event id assigned
-- (read inside the writing transaction) is at least the feed position of
-- every snapshot that cannot see this write, and the next one is greater.
CREATE TRIGGER `property_sort_changes_record` AFTER UPDATE OF `type`, `owner_id`, `total_units`, `rentable_units` ON `properties`
WHEN old.`type` IS NOT new.`type` OR old.`owner_id` IS NOT new.`owner_id`
	OR old.`total_units` IS NOT new.`total_units` OR old.`rentable_units` IS NOT new.`rentable_units` BEGIN
	INSERT INTO `property_sort_changes` (`property_id`, `feed_position`, `type`, `owner_id`, `total_units`, `rentable_units`)
	VALUES (old.`id`, coalesce((SELECT `seq` FROM `sqlite_sequence` WHERE `name` = 'events'), 0) + 1,
		old.`type`, old.`owner_id`, old.`total_units`, old.`rentable_units`);
END;
--> statement-breakpoint
-- Pruned with the feed: once the events up to an id are gone, a walk from
-- before it answers 410, so no walk needs the rows placed at or before it.
-- Only when the oldest events go (pruning's order), never for one removed
-- from the middle.
CREATE TRIGGER `property_sort_changes_prune` AFTER DELETE ON `events`
WHEN NOT EXISTS (SELECT 1 FROM `events` WHERE `id` < old.`id`) BEGIN
	DELETE FROM `property_sort_changes` WHERE `feed_position` <= old.`id`;
END;
