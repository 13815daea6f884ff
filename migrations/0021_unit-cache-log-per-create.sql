-- A unit insert is logged for the read caches unless the latest log row is
-- the marker ('unit', ''): a create appends the marker before its units and
-- one row per property after them, in the same transaction, so it logs once
-- per property instead of once per unit. The marker is itself a unit change,
-- and every other writer (a unit route, a shell, another process) still logs
-- each row: a committed log never ends with the marker.
DROP TRIGGER `cache_log_units_insert`;--> statement-breakpoint
CREATE TRIGGER `cache_log_units_insert` AFTER INSERT ON `units`
WHEN (SELECT `topic` = 'unit' AND `key` = '' FROM `cache_changes` ORDER BY `seq` DESC LIMIT 1) IS NOT 1 BEGIN
	INSERT INTO `cache_changes` (`topic`, `key`) VALUES ('unit', new.`property_id`);
END;
