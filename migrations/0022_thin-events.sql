-- Events name a large resource instead of carrying it: additional data
-- (up to 64 KiB) becomes {id}, a unit loses its features, a static page
-- becomes {id, slug, language}. Events written before are thinned the same
-- way, so a consumer meets one shape and the space they held is reused.
UPDATE `events` SET `data` = json_object('id', `resource_id`)
WHERE `type` = 'additional_data.updated';--> statement-breakpoint
UPDATE `events` SET `data` = json_remove(`data`, '$.features')
WHERE `type` IN ('unit.created', 'unit.updated', 'unit.deleted');--> statement-breakpoint
UPDATE `events` SET `data` = json_object(
  'id', `resource_id`,
  'slug', json_extract(`data`, '$.slug'),
  'language', json_extract(`data`, '$.language')
)
WHERE `type` IN ('static_page.published', 'static_page.unpublished');
