CREATE TABLE `employee_limits` (
	`employee_sub` text PRIMARY KEY NOT NULL,
	`per_minute` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `plan_assignments` (
	`customer_sub` text PRIMARY KEY NOT NULL,
	`plan_id` integer NOT NULL,
	FOREIGN KEY (`plan_id`) REFERENCES `plans`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `plans` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`minute_limit` integer,
	`hour_limit` integer,
	`day_limit` integer,
	`week_limit` integer,
	`month_limit` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `plans_slug_unique` ON `plans` (`slug`);--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`customer_id` text NOT NULL,
	`booking_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`pay_date` text NOT NULL,
	`status` text NOT NULL,
	`description` text
);
--> statement-breakpoint
CREATE INDEX `transactions_customer_pay_date` ON `transactions` (`customer_id`,`pay_date`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_pay_date` ON `transactions` (`pay_date`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_booking` ON `transactions` (`booking_id`);--> statement-breakpoint
CREATE TABLE `window_usage` (
	`subject` text NOT NULL,
	`window` text NOT NULL,
	`window_start` integer NOT NULL,
	`resets_at` integer NOT NULL,
	`used` integer NOT NULL,
	PRIMARY KEY(`subject`, `window`)
);
--> statement-breakpoint
CREATE INDEX `window_usage_resets_at` ON `window_usage` (`resets_at`);