DROP INDEX `unit_features_name_value_idx`;--> statement-breakpoint
CREATE INDEX `unit_features_name_value_idx` ON `unit_features` (`name`,`value`,`property_id`,`unit_id`);--> statement-breakpoint
CREATE INDEX `units_deleted_idx` ON `units` (`id`) WHERE "units"."deleted_at" IS NOT NULL;