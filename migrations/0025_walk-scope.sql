ALTER TABLE `property_sort_changes` ADD `new_owner_id` text;--> statement-breakpoint
CREATE INDEX `property_sort_changes_owner_idx` ON `property_sort_changes` (`owner_id`,`feed_position`);--> statement-breakpoint
CREATE INDEX `property_sort_changes_new_owner_idx` ON `property_sort_changes` (`new_owner_id`,`feed_position`) WHERE "property_sort_changes"."new_owner_id" IS NOT NULL;--> statement-breakpoint
-- A walk confined to one owner (a customer's, or one filtered by owner)
-- counts and reads only the changes of that owner's properties, on the two
-- owner indexes (src/listings/properties/walk-order.ts). A write moving a
-- property to another owner concerns the walks of both: the row keeps the
-- owner it had and names the one it went to.
DROP TRIGGER `property_sort_changes_record`;
--> statement-breakpoint
CREATE TRIGGER `property_sort_changes_record` AFTER UPDATE OF `type`, `owner_id`, `total_units`, `rentable_units` ON `properties`
WHEN old.`type` IS NOT new.`type` OR old.`owner_id` IS NOT new.`owner_id`
	OR old.`total_units` IS NOT new.`total_units` OR old.`rentable_units` IS NOT new.`rentable_units` BEGIN
	INSERT INTO `property_sort_changes` (`property_id`, `feed_position`, `type`, `owner_id`, `total_units`, `rentable_units`, `new_owner_id`)
	VALUES (old.`id`, coalesce((SELECT `seq` FROM `sqlite_sequence` WHERE `name` = 'events'), 0) + 1,
		old.`type`, old.`owner_id`, old.`total_units`, old.`rentable_units`,
		CASE WHEN old.`owner_id` IS NOT new.`owner_id` THEN new.`owner_id` END);
END;
--> statement-breakpoint
-- The rows kept before: the owner after each is the one its property's next
-- change kept or, after its last, the property's owner now.
UPDATE `property_sort_changes` SET `new_owner_id` = nullif(coalesce(
	(SELECT n.`owner_id` FROM `property_sort_changes` n
		WHERE n.`property_id` = `property_sort_changes`.`property_id` AND n.`id` > `property_sort_changes`.`id`
		ORDER BY n.`id` LIMIT 1),
	(SELECT p.`owner_id` FROM `properties` p WHERE p.`id` = `property_sort_changes`.`property_id`)),
	`owner_id`);
