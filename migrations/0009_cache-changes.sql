-- What the read caches hold answers from, told row by row: every write to a
-- table a cache reads appends one row here in the writing transaction, whoever
-- writes (a route, a worker, a shell, another process). The service reads the
-- rows after its last seen `seq` and drops only the answers they can change
-- (src/db/change-feed.ts). Writes to other tables (window_usage, sessions,
-- job_runs, idempotency_keys, …) add nothing. `key` holds the fields the
-- answers are scoped by, joined by U+001F.
CREATE TABLE `cache_changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`topic` text NOT NULL,
	`key` text NOT NULL
);
--> statement-breakpoint
-- Only the recent rows are kept: a reader that finds a gap after its last
-- seen `seq` drops every answer.
CREATE TRIGGER `cache_changes_prune` AFTER INSERT ON `cache_changes` WHEN new.`seq` % 256 = 0 BEGIN
	DELETE FROM `cache_changes` WHERE `seq` <= new.`seq` - 8192;
END;
--> statement-breakpoint
-- A property: its id, then owner, city and type before and after the write.
CREATE TRIGGER `cache_log_properties_insert` AFTER INSERT ON `properties` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('property', new.`id` || char(31) || new.`owner_id` || char(31) || new.`city_id` || char(31) || new.`type`);
END;
--> statement-breakpoint
CREATE TRIGGER `cache_log_properties_update` AFTER UPDATE ON `properties` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('property', old.`id` || char(31) || old.`owner_id` || char(31) || old.`city_id` || char(31) || old.`type`
		|| char(31) || new.`id` || char(31) || new.`owner_id` || char(31) || new.`city_id` || char(31) || new.`type`);
END;
--> statement-breakpoint
CREATE TRIGGER `cache_log_properties_delete` AFTER DELETE ON `properties` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('property', old.`id` || char(31) || old.`owner_id` || char(31) || old.`city_id` || char(31) || old.`type`);
END;
--> statement-breakpoint
-- A unit's existence and deletion decide the unitIds and features filters; its
-- other columns appear in no cached answer (the property row carries the counters).
CREATE TRIGGER `cache_log_units_insert` AFTER INSERT ON `units` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('unit', new.`property_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `cache_log_units_delete` AFTER DELETE ON `units` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('unit', old.`property_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `cache_log_units_update` AFTER UPDATE OF `id`, `property_id`, `deleted_at` ON `units`
WHEN old.`id` IS NOT new.`id` OR old.`property_id` IS NOT new.`property_id` OR old.`deleted_at` IS NOT new.`deleted_at` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('unit', old.`property_id`), ('unit', new.`property_id`);
	INSERT INTO `cache_changes` (`topic`, `key`) SELECT 'feature', `name` FROM `unit_features` WHERE `unit_id` IN (old.`id`, new.`id`);
END;
--> statement-breakpoint
-- A unit feature: its name (what a features filter names).
CREATE TRIGGER `cache_log_unit_features_insert` AFTER INSERT ON `unit_features` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('feature', new.`name`);
END;
--> statement-breakpoint
CREATE TRIGGER `cache_log_unit_features_update` AFTER UPDATE ON `unit_features` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('feature', old.`name`), ('feature', new.`name`);
END;
--> statement-breakpoint
CREATE TRIGGER `cache_log_unit_features_delete` AFTER DELETE ON `unit_features` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('feature', old.`name`);
END;
--> statement-breakpoint
-- A transaction: its customer.
CREATE TRIGGER `cache_log_transactions_insert` AFTER INSERT ON `transactions` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('transaction', new.`customer_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `cache_log_transactions_update` AFTER UPDATE ON `transactions` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('transaction', old.`customer_id`), ('transaction', new.`customer_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `cache_log_transactions_delete` AFTER DELETE ON `transactions` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('transaction', old.`customer_id`);
END;
--> statement-breakpoint
-- A static page: its slug.
CREATE TRIGGER `cache_log_static_pages_insert` AFTER INSERT ON `static_pages` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('page', new.`slug`);
END;
--> statement-breakpoint
CREATE TRIGGER `cache_log_static_pages_update` AFTER UPDATE ON `static_pages` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('page', old.`slug`), ('page', new.`slug`);
END;
--> statement-breakpoint
CREATE TRIGGER `cache_log_static_pages_delete` AFTER DELETE ON `static_pages` BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('page', old.`slug`);
END;
