import type { AuditContext } from '@/audit/record';
import type { Caller } from '@/auth/tokens';
import type { EventType } from '@/events/schemas';
import type { NewEvent } from '@/events/store';
import { fail, fieldError } from '@/kernel/errors';
import { type Steps, step } from '@/kernel/steps';
import { ensureVisible, scopeOf } from '@/listings/access';
import { countryOf } from '@/listings/cities';
import { propertyChange } from '@/listings/events';
import type { BulkPropertyInput } from '@/listings/properties/bulk';
import { ensureCurrent, type PropertyWrite } from '@/listings/properties/etag';
import { addressSearchOf } from '@/listings/properties/representation';
import type {
  InformationBody,
  LocationUpdate,
  PropertyCreate,
  PropertyType,
} from '@/listings/properties/schemas';
import type { PropertyTables } from '@/listings/properties/tables';
import { unitEvents } from '@/listings/units/operations';

export interface CreateOptions {
  caller: Caller | null;
  source: 'inbound' | 'outbound';
  now: number;
}

/**
 * The row a create inserts: `totalUnits` (default 1) units,
 * the first `rentableUnits` (default all) rentable, none published; the
 * multi-listing counter starts at `totalUnits`. A customer may only create
 * its own (422 otherwise), checked here, before anything is queued.
 */
export function propertyToCreate(input: PropertyCreate, options: CreateOptions): BulkPropertyInput {
  const scope = scopeOf(options.caller);
  if (scope !== null && input.ownerId !== scope) {
    throw fieldError(['ownerId'], 'notAllowed', 'A customer may only create its own properties');
  }
  return { ...input, source: options.source, createdAt: options.now };
}

export interface ArchiveReasons {
  reasonToUnpublish?: string;
  reasonToUnpublishExtraInfo?: string;
}

export type PropertyOperation<T> = (tables: PropertyTables) => Steps<T>;

/**
 * The property a write acts on, read inside the write's transaction: 404 when
 * the caller may not see it, 412 when `If-Match` names another version.
 */
function* currentProperty(t: PropertyTables, id: string, write: PropertyWrite) {
  const property = ensureVisible(yield* step(t.property(id)), write.caller);
  ensureCurrent(property, write.ifMatch);
  return property;
}

function* propertyRow(t: PropertyTables, id: string) {
  const row = yield* step(t.property(id));
  if (!row) throw new Error(`property ${id} vanished inside its own write`);
  return row;
}

/** A property changed: `data` is the property as GET answers it once committed. */
function* propertyEvent(t: PropertyTables, type: EventType, id: string, now: number) {
  const event = propertyChange(type, yield* propertyRow(t, id));
  yield* step(t.appendEvents([{ event, now }]));
}

/** DELETE /properties/{id}: unpublishes every unit and archives (409 when already archived). */
export const archiveProperty = (id: string, reasons: ArchiveReasons, write: PropertyWrite) =>
  function* (t: PropertyTables): Steps<void> {
    const { now } = write;
    const property = yield* currentProperty(t, id, write);
    if (property.archived) throw fail('property.archived');
    const unpublished = yield* step(t.unpublishUnits(id, now));
    yield* step(
      t.updateProperty(id, {
        archived: true,
        reasonToUnpublish: reasons.reasonToUnpublish ?? null,
        reasonToUnpublishExtraInfo: reasons.reasonToUnpublishExtraInfo ?? null,
      }),
    );
    yield* step(t.refreshCounters(id, now));
    yield* unitEvents(t, 'unit.updated', property.owner_id, unpublished, now);
    yield* propertyEvent(t, 'property.archived', id, now);
  };

/** POST /properties/{id}/unarchive: back to not archived, units still unpublished (409 when not archived). */
export const unarchiveProperty = (id: string, write: PropertyWrite) =>
  function* (t: PropertyTables): Steps<void> {
    const property = yield* currentProperty(t, id, write);
    if (!property.archived) throw fail('property.not_archived');
    yield* step(
      t.updateProperty(id, {
        archived: false,
        reasonToUnpublish: null,
        reasonToUnpublishExtraInfo: null,
      }),
    );
    yield* step(t.refreshCounters(id, write.now));
    yield* propertyEvent(t, 'property.unarchived', id, write.now);
  };

/** PUT /properties/{id}/convert: 409 on an archived property; the same type is a no-op. */
export const convertProperty = (id: string, type: PropertyType, write: PropertyWrite) =>
  function* (t: PropertyTables): Steps<void> {
    const property = yield* currentProperty(t, id, write);
    if (property.archived) throw fail('property.archived');
    if (property.type === type) return;
    yield* step(t.updateProperty(id, { type, updatedAt: write.now }));
    yield* propertyEvent(t, 'property.converted', id, write.now);
  };

/**
 * PUT /properties/{id}/location: replaces the address and coordinates
 * (an omitted addressLine2 is cleared, an omitted cityId kept); `country`
 * follows `cityId`; another city drops the neighbourhood.
 */
export const moveProperty = (id: string, location: LocationUpdate, write: PropertyWrite) =>
  function* (t: PropertyTables): Steps<void> {
    const property = yield* currentProperty(t, id, write);
    const cityId = location.cityId ?? property.city_id;
    const neighbourhoodId = cityId === property.city_id ? property.neighbourhood_id : null;
    yield* step(
      t.updateProperty(id, {
        addressLine1: location.addressLine1,
        addressLine2: location.addressLine2 ?? null,
        city: location.city,
        cityId,
        neighbourhoodId,
        postalCode: location.postalCode,
        country: countryOf(cityId),
        latitude: location.latitude,
        longitude: location.longitude,
        addressSearch: addressSearchOf(location),
        updatedAt: write.now,
      }),
    );
    yield* propertyEvent(t, 'property.location_changed', id, write.now);
  };

/**
 * PUT /properties/{id}/neighbourhood: 409 for an unknown neighbourhood, one
 * of another city, or an archived property.
 */
export const assignNeighbourhood = (id: string, neighbourhoodId: string, write: PropertyWrite) =>
  function* (t: PropertyTables): Steps<void> {
    const property = yield* currentProperty(t, id, write);
    const city = yield* step(t.neighbourhoodCity(neighbourhoodId));
    if (property.archived) throw fail('property.archived');
    if (city !== property.city_id) throw fail('property.neighbourhood_mismatch');
    yield* step(t.updateProperty(id, { neighbourhoodId, updatedAt: write.now }));
    yield* propertyEvent(t, 'property.neighbourhood_changed', id, write.now);
  };

/**
 * PUT /properties/{id}/owner (employees only: the route refuses customers
 * with 403). The previous owner is told the property left its view (`data:
 * {id}`, its own event), then the new owner gets the property.
 */
export const changeOwner = (
  id: string,
  ownerId: string,
  write: PropertyWrite & { audit: AuditContext },
) =>
  function* (t: PropertyTables): Steps<void> {
    const previous = (yield* currentProperty(t, id, write)).owner_id;
    yield* step(
      t.recordAudit(write.audit, {
        action: 'property.owner_changed',
        subject: ownerId,
        target: id,
        details: { previousOwnerId: previous, ownerId },
      }),
    );
    yield* step(t.updateProperty(id, { ownerId, updatedAt: write.now }));
    const row = yield* propertyRow(t, id);
    if (row.owner_id !== previous) {
      const left: NewEvent = {
        type: 'property.owner_changed',
        resource: { kind: 'property', id },
        ownerId: previous,
        data: { id },
      };
      yield* step(t.appendEvents([{ event: left, now: write.now }]));
    }
    yield* propertyEvent(t, 'property.owner_changed', id, write.now);
  };

/** PUT /properties/{id}/information: replaces both fields (an omitted year is cleared). */
export const changeInformation = (id: string, information: InformationBody, write: PropertyWrite) =>
  function* (t: PropertyTables): Steps<void> {
    yield* currentProperty(t, id, write);
    yield* step(
      t.updateProperty(id, {
        isVisitable: information.isVisitable,
        yearOfConstruction: information.yearOfConstruction ?? null,
        updatedAt: write.now,
      }),
    );
    yield* propertyEvent(t, 'property.information_changed', id, write.now);
  };
