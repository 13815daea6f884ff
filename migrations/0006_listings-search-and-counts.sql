-- Substring search over the address (GET /listings/properties?address=): an FTS5
-- trigram index over properties.address_search (already lower-cased by the
-- service, hence case_sensitive 1). External content: the index only, no copy.
CREATE VIRTUAL TABLE `property_address_search` USING fts5(
	`address_search`,
	content = 'properties',
	content_rowid = 'seq',
	tokenize = 'trigram case_sensitive 1',
	columnsize = 0
);
--> statement-breakpoint
-- The address index and property_counts follow every write to properties in
-- the writing transaction, whoever writes (service, bulk insert, a shell).
CREATE TRIGGER `properties_after_insert` AFTER INSERT ON `properties` BEGIN
	INSERT INTO `property_address_search` (`rowid`, `address_search`) VALUES (new.`seq`, new.`address_search`);
	INSERT INTO `property_counts` (`city_id`, `type`, `rentable_units`, `published`, `archived`, `properties`)
		VALUES (new.`city_id`, new.`type`, new.`rentable_units`, new.`published`, new.`archived`, 1)
		ON CONFLICT DO UPDATE SET `properties` = `properties` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `properties_after_delete` AFTER DELETE ON `properties` BEGIN
	INSERT INTO `property_address_search` (`property_address_search`, `rowid`, `address_search`) VALUES ('delete', old.`seq`, old.`address_search`);
	UPDATE `property_counts` SET `properties` = `properties` - 1
		WHERE `city_id` = old.`city_id` AND `type` = old.`type` AND `rentable_units` = old.`rentable_units`
		AND `published` = old.`published` AND `archived` = old.`archived`;
END;
--> statement-breakpoint
CREATE TRIGGER `properties_after_address_update` AFTER UPDATE OF `address_search` ON `properties`
WHEN old.`address_search` IS NOT new.`address_search` BEGIN
	INSERT INTO `property_address_search` (`property_address_search`, `rowid`, `address_search`) VALUES ('delete', old.`seq`, old.`address_search`);
	INSERT INTO `property_address_search` (`rowid`, `address_search`) VALUES (new.`seq`, new.`address_search`);
END;
--> statement-breakpoint
CREATE TRIGGER `properties_after_counted_update` AFTER UPDATE OF `city_id`, `type`, `rentable_units`, `published`, `archived` ON `properties`
WHEN old.`city_id` IS NOT new.`city_id` OR old.`type` IS NOT new.`type` OR old.`rentable_units` IS NOT new.`rentable_units`
	OR old.`published` IS NOT new.`published` OR old.`archived` IS NOT new.`archived` BEGIN
	UPDATE `property_counts` SET `properties` = `properties` - 1
		WHERE `city_id` = old.`city_id` AND `type` = old.`type` AND `rentable_units` = old.`rentable_units`
		AND `published` = old.`published` AND `archived` = old.`archived`;
	INSERT INTO `property_counts` (`city_id`, `type`, `rentable_units`, `published`, `archived`, `properties`)
		VALUES (new.`city_id`, new.`type`, new.`rentable_units`, new.`published`, new.`archived`, 1)
		ON CONFLICT DO UPDATE SET `properties` = `properties` + 1;
END;
