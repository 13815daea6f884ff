import {
  type CallOptions,
  type ConditionalReadOptions,
  conditionalRead,
  type IdempotentCallOptions,
  segment,
  type Transport,
} from './http.js';
import { type MirrorFilters, type MirrorOptions, mirrorListings } from './mirror.js';
import { halItems, halPages } from './pagination.js';
import type {
  AdditionalData,
  AdditionalDataCreate,
  AdditionalDataPut,
  AdditionalDataWritten,
  ArchiveBody,
  ConvertBody,
  CounterBody,
  Created,
  InformationBody,
  LocationUpdate,
  MultiListingUnit,
  MultiListingUnitList,
  MultiListingUnitQuery,
  NeighbourhoodAssignment,
  NeighbourhoodBody,
  NeighbourhoodList,
  NeighbourhoodQuery,
  OwnerChange,
  Property,
  PropertyCreate,
  PropertyList,
  PropertyListQuery,
  PublicPropertyCreate,
  Unit,
  UnitCreate,
  UnitList,
  UnitListQuery,
  UnitPatch,
} from './types.js';

/** Options of a property write: `ifMatch` makes it conditional. */
export interface PropertyWriteOptions extends CallOptions {
  /**
   * The ETag of the property as last read (`getIfChanged`), sent as
   * If-Match: the write is refused with a 412 `ProblemError` when the
   * property has changed since.
   */
  ifMatch?: string;
}

/** The request options of a write, `ifMatch` as its header. */
const ifMatched = ({
  ifMatch,
  ...options
}: PropertyWriteOptions & IdempotentCallOptions = {}): IdempotentCallOptions => ({
  ...options,
  headers: { ...options.headers, ...(ifMatch ? { 'if-match': ifMatch } : {}) },
});

const BASE = '/listings';
const property = (id: string) => `${BASE}/properties/${segment(id)}`;
const unit = (id: string, unitId: string) => `${property(id)}/units/${segment(unitId)}`;

/** The listings API (/listings): properties, units, neighbourhoods, counters, additional data. */
export function listingsApi(http: Transport) {
  const properties = {
    /** One page: `GET /properties` with filters, `page` and `itemsPerPage`. */
    list: (query?: PropertyListQuery, options?: CallOptions) =>
      http.json<PropertyList>('GET', `${BASE}/properties`, { ...options, query }),
    /** Every page from `query.page` (default 1), following `_links.next`. */
    pages: (query?: PropertyListQuery, options?: CallOptions) =>
      halPages<PropertyList>(http, `${BASE}/properties`, query, options?.signal),
    /** Every property matching the filters, page after page. */
    all: (query?: PropertyListQuery, options?: CallOptions) =>
      halItems<Property>(properties.pages(query, options), 'svc:properties'),
    /** 201; the new id from `Location: /properties/<id>` (a root path the service reads as `GET /listings/properties/{id}`). */
    create: (body: PropertyCreate, options?: IdempotentCallOptions): Promise<Created> =>
      http.create('POST', `${BASE}/properties`, { ...options, body }),
    /** `POST /public/properties`: on behalf of a public user (unit counts required). */
    createPublic: (body: PublicPropertyCreate, options?: IdempotentCallOptions): Promise<Created> =>
      http.create('POST', `${BASE}/public/properties`, { ...options, body }),
    get: (id: string, options?: CallOptions) => http.json<Property>('GET', property(id), options),
    /**
     * The property and its ETag (`{notModified: false, etag, body}`), or
     * `{notModified: true, etag}` on 304 when `ifNoneMatch` is its current
     * tag. The ETag is also what the writes take as If-Match.
     */
    getIfChanged: (id: string, options?: ConditionalReadOptions) =>
      conditionalRead<Property>(http, property(id), options),
    /** `DELETE /properties/{id}`: archives (409 when already archived). */
    archive: (id: string, body?: ArchiveBody, options?: PropertyWriteOptions) =>
      http.send('DELETE', property(id), { ...ifMatched(options), body }),
    unarchive: (id: string, options?: PropertyWriteOptions & IdempotentCallOptions) =>
      http.send('POST', `${property(id)}/unarchive`, ifMatched(options)),
    convert: (id: string, body: ConvertBody, options?: PropertyWriteOptions) =>
      http.send('PUT', `${property(id)}/convert`, { ...ifMatched(options), body }),
    move: (id: string, body: LocationUpdate, options?: PropertyWriteOptions) =>
      http.send('PUT', `${property(id)}/location`, { ...ifMatched(options), body }),
    assignNeighbourhood: (
      id: string,
      body: NeighbourhoodAssignment,
      options?: PropertyWriteOptions,
    ) => http.send('PUT', `${property(id)}/neighbourhood`, { ...ifMatched(options), body }),
    changeOwner: (id: string, body: OwnerChange, options?: PropertyWriteOptions) =>
      http.send('PUT', `${property(id)}/owner`, { ...ifMatched(options), body }),
    changeInformation: (id: string, body: InformationBody, options?: PropertyWriteOptions) =>
      http.send('PUT', `${property(id)}/information`, { ...ifMatched(options), body }),
  };

  const units = {
    list: (propertyId: string, query?: UnitListQuery, options?: CallOptions) =>
      http.json<UnitList>('GET', `${property(propertyId)}/units`, { ...options, query }),
    pages: (propertyId: string, query?: UnitListQuery, options?: CallOptions) =>
      halPages<UnitList>(http, `${property(propertyId)}/units`, query, options?.signal),
    all: (propertyId: string, query?: UnitListQuery, options?: CallOptions) =>
      halItems<Unit>(units.pages(propertyId, query, options), 'svc:units'),
    create: (propertyId: string, body?: UnitCreate, options?: IdempotentCallOptions) =>
      http.create('POST', `${property(propertyId)}/units`, { ...options, body }),
    get: (propertyId: string, unitId: string, options?: CallOptions) =>
      http.json<Unit>('GET', unit(propertyId, unitId), options),
    update: (propertyId: string, unitId: string, body: UnitPatch, options?: CallOptions) =>
      http.send('PATCH', unit(propertyId, unitId), { ...options, body }),
    delete: (propertyId: string, unitId: string, options?: CallOptions) =>
      http.send('DELETE', unit(propertyId, unitId), options),
  };

  const neighbourhoods = {
    list: (query?: NeighbourhoodQuery, options?: CallOptions) =>
      http.json<NeighbourhoodList>('GET', `${BASE}/neighbourhoods`, { ...options, query }),
    /** Creates or replaces a catalogue entry (employees). */
    put: (id: string, body: NeighbourhoodBody, options?: CallOptions) =>
      http.send('PUT', `${BASE}/neighbourhoods/${segment(id)}`, { ...options, body }),
  };

  const counter = (id: string) => `${BASE}/multi-listing-units/${segment(id)}`;
  const multiListingUnits = {
    list: (query?: MultiListingUnitQuery, options?: CallOptions) =>
      http.json<MultiListingUnitList>('GET', `${BASE}/multi-listing-units`, { ...options, query }),
    pages: (query?: MultiListingUnitQuery, options?: CallOptions) =>
      halPages<MultiListingUnitList>(http, `${BASE}/multi-listing-units`, query, options?.signal),
    all: (query?: MultiListingUnitQuery, options?: CallOptions) =>
      halItems<MultiListingUnit>(
        multiListingUnits.pages(query, options),
        'svc:multi-listing-units',
      ),
    get: (id: string, options?: CallOptions) =>
      http.json<MultiListingUnit>('GET', counter(id), options),
    /** Sets the counter (employees). */
    set: (id: string, body: CounterBody, options?: CallOptions) =>
      http.send('PUT', counter(id), { ...options, body }),
  };

  const additionalData = {
    /** 201; 422 `recordNotFound` / `recordExists` on `id`. */
    create: (body: AdditionalDataCreate, options?: IdempotentCallOptions) =>
      http.create('POST', `${BASE}/properties/additional-data`, { ...options, body }),
    get: (propertyId: string, options?: CallOptions) =>
      http.json<AdditionalData>('GET', `${property(propertyId)}/additional-data`, options),
    /** Creates or replaces; answers `{data}`. */
    put: (propertyId: string, body: AdditionalDataPut, options?: CallOptions) =>
      http.json<AdditionalDataWritten>('PUT', `${property(propertyId)}/additional-data`, {
        ...options,
        body,
      }),
  };

  /**
   * The properties the caller may see (within `filters`), kept exact: an
   * async iterator of change batches, listing first, then the change feed
   * (docs/mirroring.md).
   */
  const mirror = (filters?: MirrorFilters, options?: MirrorOptions) =>
    mirrorListings(http, filters, options);

  return { properties, units, neighbourhoods, multiListingUnits, additionalData, mirror };
}
