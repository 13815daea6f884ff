import { type AuditContext, recordAudit } from '@/audit/record';
import type { Caller } from '@/auth/tokens';
import type { Db } from '@/db/client';
import { fail, fieldError } from '@/kernel/errors';
import { ensureVisible, scopeOf } from '@/listings/access';
import { countryOf } from '@/listings/cities';
import { ownerChangeEvents, propertyEvent, unitEvents } from '@/listings/events';
import type { BulkPropertyInput } from '@/listings/properties/bulk';
import { ensureCurrent, type PropertyWrite } from '@/listings/properties/etag';
import {
  addressSearchOf,
  PROPERTY_BY_ID,
  type PropertyRecord,
} from '@/listings/properties/representation';
import type {
  InformationBody,
  LocationUpdate,
  PropertyCreate,
  PropertyType,
} from '@/listings/properties/schemas';
import { exec, many, one, writeTransaction } from '@/listings/sql';

/** A property as `caller` may see it (404 otherwise). Read inside the caller's transaction. */
export function findProperty(db: Db, id: string, caller: Caller | null): PropertyRecord {
  return ensureVisible(one<PropertyRecord>(db, PROPERTY_BY_ID, id), caller);
}

/**
 * The property a write acts on, read inside the write's transaction: 404 when
 * the caller may not see it, 412 when `If-Match` names another version.
 */
function currentProperty(db: Db, id: string, write: PropertyWrite): PropertyRecord {
  const property = findProperty(db, id, write.caller);
  ensureCurrent(property, write.ifMatch);
  return property;
}

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

/**
 * Rewrites the unit counters and `published` of a property from its units
 * (counters count the non-deleted units; published = not
 * archived and at least one published unit). Called in every unit write's
 * transaction.
 */
export function refreshCounters(db: Db, propertyId: string, now: number): void {
  exec(
    db,
    `UPDATE properties SET total_units = c.total, rentable_units = c.rentable,
       published_units = c.published, published = (archived = 0 AND c.published > 0), updated_at = ?
     FROM (SELECT count(*) AS total, coalesce(sum(rentable), 0) AS rentable,
             coalesce(sum(published), 0) AS published
           FROM units WHERE property_id = ? AND deleted_at IS NULL) AS c
     WHERE id = ?`,
    now,
    propertyId,
    propertyId,
  );
}

export interface ArchiveReasons {
  reasonToUnpublish?: string;
  reasonToUnpublishExtraInfo?: string;
}

/** DELETE /properties/{id}: unpublishes every unit and archives (409 when already archived). */
export function archiveProperty(db: Db, id: string, reasons: ArchiveReasons, write: PropertyWrite) {
  const { now } = write;
  writeTransaction(db, () => {
    const property = currentProperty(db, id, write);
    if (property.archived) throw fail('property.archived');
    const unpublished = many<{ id: string }>(
      db,
      'UPDATE units SET published = 0, updated_at = ? WHERE property_id = ? AND published = 1 RETURNING id',
      now,
      id,
    ).map((unit) => unit.id);
    exec(
      db,
      `UPDATE properties SET archived = 1, reason_to_unpublish = ?,
         reason_to_unpublish_extra_info = ? WHERE id = ?`,
      reasons.reasonToUnpublish ?? null,
      reasons.reasonToUnpublishExtraInfo ?? null,
      id,
    );
    refreshCounters(db, id, now);
    unitEvents(db, 'unit.updated', property.owner_id, unpublished, now);
    propertyEvent(db, 'property.archived', id, now);
  });
}

/** POST /properties/{id}/unarchive: back to not archived, units still unpublished (409 when not archived). */
export function unarchiveProperty(db: Db, id: string, write: PropertyWrite) {
  writeTransaction(db, () => {
    const property = currentProperty(db, id, write);
    if (!property.archived) throw fail('property.not_archived');
    exec(
      db,
      `UPDATE properties SET archived = 0, reason_to_unpublish = NULL,
         reason_to_unpublish_extra_info = NULL WHERE id = ?`,
      id,
    );
    refreshCounters(db, id, write.now);
    propertyEvent(db, 'property.unarchived', id, write.now);
  });
}

/** PUT /properties/{id}/convert: 409 on an archived property; the same type is a no-op. */
export function convertProperty(db: Db, id: string, type: PropertyType, write: PropertyWrite) {
  writeTransaction(db, () => {
    const property = currentProperty(db, id, write);
    if (property.archived) throw fail('property.archived');
    if (property.type === type) return;
    exec(db, 'UPDATE properties SET type = ?, updated_at = ? WHERE id = ?', type, write.now, id);
    propertyEvent(db, 'property.converted', id, write.now);
  });
}

/**
 * PUT /properties/{id}/location: replaces the address and coordinates
 * (an omitted addressLine2 is cleared, an omitted cityId kept); `country`
 * follows `cityId`; another city drops the neighbourhood.
 */
export function moveProperty(db: Db, id: string, location: LocationUpdate, write: PropertyWrite) {
  writeTransaction(db, () => {
    const property = currentProperty(db, id, write);
    const cityId = location.cityId ?? property.city_id;
    const neighbourhoodId = cityId === property.city_id ? property.neighbourhood_id : null;
    exec(
      db,
      `UPDATE properties SET address_line1 = ?, address_line2 = ?, city = ?, city_id = ?,
         neighbourhood_id = ?, postal_code = ?, country = ?, latitude = ?, longitude = ?,
         address_search = ?, updated_at = ? WHERE id = ?`,
      location.addressLine1,
      location.addressLine2 ?? null,
      location.city,
      cityId,
      neighbourhoodId,
      location.postalCode,
      countryOf(cityId),
      location.latitude,
      location.longitude,
      addressSearchOf(location),
      write.now,
      id,
    );
    propertyEvent(db, 'property.location_changed', id, write.now);
  });
}

/**
 * PUT /properties/{id}/neighbourhood: 409 for an unknown neighbourhood, one
 * of another city, or an archived property.
 */
export function assignNeighbourhood(
  db: Db,
  id: string,
  neighbourhoodId: string,
  write: PropertyWrite,
) {
  writeTransaction(db, () => {
    const property = currentProperty(db, id, write);
    const neighbourhood = one<{ city_id: string }>(
      db,
      'SELECT city_id FROM neighbourhoods WHERE id = ?',
      neighbourhoodId,
    );
    if (property.archived) throw fail('property.archived');
    if (neighbourhood?.city_id !== property.city_id) throw fail('property.neighbourhood_mismatch');
    exec(
      db,
      'UPDATE properties SET neighbourhood_id = ?, updated_at = ? WHERE id = ?',
      neighbourhoodId,
      write.now,
      id,
    );
    propertyEvent(db, 'property.neighbourhood_changed', id, write.now);
  });
}

/** PUT /properties/{id}/owner (employees only: the route refuses customers with 403). */
export function changeOwner(
  db: Db,
  id: string,
  ownerId: string,
  write: PropertyWrite & { audit: AuditContext },
) {
  writeTransaction(db, () => {
    const previous = currentProperty(db, id, write).owner_id;
    recordAudit(db, write.audit, {
      action: 'property.owner_changed',
      subject: ownerId,
      target: id,
      details: { previousOwnerId: previous, ownerId },
    });
    exec(
      db,
      'UPDATE properties SET owner_id = ?, updated_at = ? WHERE id = ?',
      ownerId,
      write.now,
      id,
    );
    ownerChangeEvents(db, id, previous, write.now);
  });
}

/** PUT /properties/{id}/information: replaces both fields (an omitted year is cleared). */
export function changeInformation(
  db: Db,
  id: string,
  information: InformationBody,
  write: PropertyWrite,
) {
  writeTransaction(db, () => {
    currentProperty(db, id, write);
    exec(
      db,
      'UPDATE properties SET is_visitable = ?, year_of_construction = ?, updated_at = ? WHERE id = ?',
      information.isVisitable ? 1 : 0,
      information.yearOfConstruction ?? null,
      write.now,
      id,
    );
    propertyEvent(db, 'property.information_changed', id, write.now);
  });
}
