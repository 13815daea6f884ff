import { z } from 'zod';

/** What changed, one name per kind of change (docs/events-and-webhooks.md lists when each is sent). */
export const EVENT_TYPES = [
  'property.created',
  'property.location_changed',
  'property.neighbourhood_changed',
  'property.information_changed',
  'property.archived',
  'property.unarchived',
  'property.converted',
  'property.owner_changed',
  'unit.created',
  'unit.updated',
  'unit.deleted',
  'multi_listing_counter.updated',
  'additional_data.updated',
  'neighbourhood.updated',
  'static_page.published',
  'static_page.unpublished',
  'static_page.deleted',
] as const;
export const EventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventType>;

export const RESOURCE_KINDS = [
  'property',
  'unit',
  'multi_listing_counter',
  'additional_data',
  'neighbourhood',
  'static_page',
] as const;
export const ResourceKind = z.enum(RESOURCE_KINDS);
export type ResourceKind = z.infer<typeof ResourceKind>;

/**
 * The `data` of the events whose resource can be large (additional data up
 * to 64 KiB, a unit's features up to ~50 KiB, a static page's body up to
 * 512 KiB): what changed, by the ids its GET takes, never the large part.
 * Every other event carries its resource whole, and each of those is bounded
 * to a few KiB (docs/events-and-webhooks.md, "Event sizes").
 */
export const AdditionalDataEventData = z
  .object({ id: z.string() })
  .describe(
    '`additional_data.updated`: the property; GET /properties/{id}/additional-data reads it',
  );
export type AdditionalDataEventData = z.infer<typeof AdditionalDataEventData>;

export const UnitEventData = z
  .object({
    id: z.string(),
    propertyId: z.string(),
    rentable: z.boolean(),
    published: z.boolean(),
    deleted: z.boolean(),
    deletedAt: z.iso.datetime().nullable(),
  })
  .describe('`unit.*`: the unit as its GET answers it without `features`');
export type UnitEventData = z.infer<typeof UnitEventData>;

export const StaticPageEventData = z
  .object({ id: z.string(), slug: z.string(), language: z.string() })
  .describe(
    '`static_page.*`: the page; once published, GET /content/static-pages/{slug}?language= reads it',
  );
export type StaticPageEventData = z.infer<typeof StaticPageEventData>;

/** One event as the feed answers it. */
export const Event = z.object({
  id: z.string().describe('Opaque cursor of this event: pass it as `after` to read what follows'),
  type: EventType,
  occurredAt: z.iso.datetime(),
  resource: z.object({ kind: ResourceKind, id: z.string() }),
  ownerId: z
    .string()
    .nullable()
    .describe('Owner of the property concerned; null for neighbourhood and static page events'),
  data: z
    .record(z.string(), z.unknown())
    .describe(
      'What changed. Property, multi-listing counter and neighbourhood events: the resource as its GET answers it after the change (`{id}` alone to the previous owner of an owner change). Unit events: the unit without `features`. `additional_data.updated`: `{id}`. Static page events: `{id, slug, language}`. Read the resource for what an event leaves out: it may be newer than the event',
    ),
});
export type Event = z.infer<typeof Event>;

export const EventPage = z.object({
  data: z.array(Event),
  next_cursor: z
    .string()
    .nullable()
    .describe('Pass as `after` for the next page: the last event here, else the `after` given'),
  has_more: z.boolean(),
});
export type EventPage = z.infer<typeof EventPage>;

export const MAX_EVENTS_PER_PAGE = 500;
export const MAX_WAIT_SECONDS = 30;

const wholeNumber = (min: number, max: number) => {
  const reason = `must be an integer from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d{1,4}$/, reason)
    .transform(Number)
    .pipe(z.int().min(min, reason).max(max, reason));
};

/** GET /listings/events. */
export const EventQuery = z.strictObject({
  after: z.string().max(64).optional().describe('Cursor: answer only events after this one'),
  types: z
    .array(EventType)
    .min(1)
    .max(EVENT_TYPES.length)
    .optional()
    .describe('Only these event types (`types=a,b`, `types=a&types=b`)'),
  limit: wholeNumber(1, MAX_EVENTS_PER_PAGE)
    .optional()
    .describe(`Events per page, 1..${MAX_EVENTS_PER_PAGE} (default 100)`),
  wait: wholeNumber(1, MAX_WAIT_SECONDS)
    .optional()
    .describe(`Seconds to hold the request open until an event arrives, 1..${MAX_WAIT_SECONDS}`)
    // Tells generated traffic (the fuzzer) that a valid value holds the answer back on purpose.
    .meta({ 'x-long-poll': true }),
});
export type EventQuery = z.infer<typeof EventQuery>;
