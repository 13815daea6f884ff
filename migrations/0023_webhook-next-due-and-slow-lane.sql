DROP INDEX `webhook_deliveries_due`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_resource`;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_resource` ON `webhook_deliveries` (`endpoint_id`,`resource`,`status`,`id`);--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `blocked` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_next` ON `webhook_deliveries` (`endpoint_id`,`next_attempt_at`,`id`) WHERE status = 'pending' AND blocked = 0;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `next_attempt_at` integer;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `pending_deliveries` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `consecutive_failures` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `slow` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `webhook_endpoints_due` ON `webhook_endpoints` (`enabled`,`slow`,`next_attempt_at`);--> statement-breakpoint
UPDATE `webhook_deliveries` SET `blocked` = 1 WHERE `status` = 'pending' AND EXISTS (SELECT 1 FROM `webhook_deliveries` `p` WHERE `p`.`endpoint_id` = `webhook_deliveries`.`endpoint_id` AND `p`.`resource` = `webhook_deliveries`.`resource` AND `p`.`status` = 'pending' AND `p`.`id` < `webhook_deliveries`.`id`);--> statement-breakpoint
UPDATE `webhook_endpoints` SET `pending_deliveries` = (SELECT count(*) FROM `webhook_deliveries` `d` WHERE `d`.`endpoint_id` = `webhook_endpoints`.`id` AND `d`.`status` = 'pending'), `next_attempt_at` = (SELECT min(`d`.`next_attempt_at`) FROM `webhook_deliveries` `d` WHERE `d`.`endpoint_id` = `webhook_endpoints`.`id` AND `d`.`status` = 'pending' AND `d`.`blocked` = 0);
