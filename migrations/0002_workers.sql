CREATE TABLE `job_runs` (
	`id` integer PRIMARY KEY NOT NULL,
	`job` text NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer NOT NULL,
	`outcome` text NOT NULL,
	`details` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `job_runs_job_id` ON `job_runs` (`job`,`id`);