CREATE TABLE `usage_buckets` (
	`resolution` text NOT NULL,
	`series` text NOT NULL,
	`start` integer NOT NULL,
	`instance` text NOT NULL,
	`requests` integer NOT NULL,
	`errors` integer NOT NULL,
	`latency` text NOT NULL,
	PRIMARY KEY(`resolution`, `series`, `start`, `instance`)
);
--> statement-breakpoint
CREATE INDEX `usage_buckets_resolution_start` ON `usage_buckets` (`resolution`,`start`);