CREATE TABLE `static_pages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`slug` text NOT NULL,
	`language` text NOT NULL,
	`title` text NOT NULL,
	`content` text NOT NULL,
	`meta_title` text DEFAULT '' NOT NULL,
	`meta_description` text DEFAULT '' NOT NULL,
	`category` text DEFAULT '' NOT NULL,
	`group` text DEFAULT '' NOT NULL,
	`accounting` text DEFAULT '{}' NOT NULL,
	`seo_meta_data` text DEFAULT '{}' NOT NULL,
	`published` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `static_pages_slug_language_unique` ON `static_pages` (`slug`,`language`);--> statement-breakpoint
CREATE INDEX `static_pages_published_id` ON `static_pages` (`published`,`id`);