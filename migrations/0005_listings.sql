CREATE TABLE `neighbourhoods` (
	`id` text PRIMARY KEY NOT NULL,
	`city_id` text NOT NULL,
	`name` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `neighbourhoods_city_name_idx` ON `neighbourhoods` (`city_id`,`name`,`id`);--> statement-breakpoint
CREATE TABLE `properties` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`owner_id` text NOT NULL,
	`address_line1` text NOT NULL,
	`address_line2` text,
	`city` text NOT NULL,
	`city_id` text NOT NULL,
	`neighbourhood_id` text,
	`postal_code` text NOT NULL,
	`country` text NOT NULL,
	`latitude` real NOT NULL,
	`longitude` real NOT NULL,
	`address_search` text NOT NULL,
	`total_units` integer NOT NULL,
	`rentable_units` integer NOT NULL,
	`published_units` integer DEFAULT 0 NOT NULL,
	`units_counter` integer NOT NULL,
	`verified` integer DEFAULT false NOT NULL,
	`year_of_construction` integer,
	`is_visitable` integer DEFAULT false NOT NULL,
	`source` text NOT NULL,
	`published` integer DEFAULT false NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`reason_to_unpublish` text,
	`reason_to_unpublish_extra_info` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`neighbourhood_id`) REFERENCES `neighbourhoods`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `properties_id_unique` ON `properties` (`id`);--> statement-breakpoint
CREATE INDEX `properties_owner_idx` ON `properties` (`owner_id`,`id`);--> statement-breakpoint
CREATE INDEX `properties_city_type_idx` ON `properties` (`city_id`,`type`,`id`);--> statement-breakpoint
CREATE INDEX `properties_type_idx` ON `properties` (`type`,`id`);--> statement-breakpoint
CREATE INDEX `properties_total_units_idx` ON `properties` (`total_units`,`id`);--> statement-breakpoint
CREATE INDEX `properties_rentable_units_idx` ON `properties` (`rentable_units`,`id`);--> statement-breakpoint
CREATE INDEX `properties_published_idx` ON `properties` (`published`,`id`);--> statement-breakpoint
CREATE INDEX `properties_archived_idx` ON `properties` (`archived`,`id`);--> statement-breakpoint
CREATE INDEX `properties_neighbourhood_idx` ON `properties` (`neighbourhood_id`) WHERE "properties"."neighbourhood_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `property_additional_data` (
	`property_id` text PRIMARY KEY NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`property_id`) REFERENCES `properties`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `property_counts` (
	`city_id` text NOT NULL,
	`type` text NOT NULL,
	`rentable_units` integer NOT NULL,
	`published` integer NOT NULL,
	`archived` integer NOT NULL,
	`properties` integer NOT NULL,
	PRIMARY KEY(`city_id`, `type`, `rentable_units`, `published`, `archived`)
);
--> statement-breakpoint
CREATE TABLE `unit_features` (
	`unit_id` text NOT NULL,
	`position` integer NOT NULL,
	`property_id` text NOT NULL,
	`applicability` text NOT NULL,
	`category` text NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`unit_id`, `position`),
	FOREIGN KEY (`unit_id`) REFERENCES `units`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `unit_features_name_value_idx` ON `unit_features` (`name`,`value`);--> statement-breakpoint
CREATE INDEX `unit_features_category_name_idx` ON `unit_features` (`category`,`name`);--> statement-breakpoint
CREATE TABLE `units` (
	`id` text PRIMARY KEY NOT NULL,
	`property_id` text NOT NULL,
	`rentable` integer NOT NULL,
	`published` integer DEFAULT false NOT NULL,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`property_id`) REFERENCES `properties`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `units_property_idx` ON `units` (`property_id`,`id`);