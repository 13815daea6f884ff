ALTER TABLE `job_runs` ADD `instance` text;--> statement-breakpoint
ALTER TABLE `job_runs` ADD `tick` integer;