import { describe, expect, test } from 'bun:test';
import { PropertyList } from '@/api/listings/properties/routes';
import { UnitList } from '@/api/listings/units/routes';
import { AdditionalData } from '@/listings/additional-data/schemas';
import { MultiListingUnit, MultiListingUnitList } from '@/listings/multi-listing-units/schemas';
import { NeighbourhoodList } from '@/listings/neighbourhoods/schemas';
import { Property } from '@/listings/properties/schemas';
import { Unit } from '@/listings/units/schemas';
import { ProblemError } from '../../client/src';
import { problemOf } from '../support/harness';
import { collect, propertyBody, serviceUnderTest } from './support';

const svc = await serviceUnderTest();
const { employee } = svc;
const listings = employee.listings;

describe('happy', () => {
  test('properties: create, read, list, change and archive through the client', async () => {
    const created = await listings.properties.create(propertyBody('owner-a', { totalUnits: 2 }));
    expect(created.location).toBe(`/properties/${created.id}`);

    const property = Property.parse(await listings.properties.get(created.id));
    expect(property).toMatchObject({ id: created.id, ownerId: 'owner-a', totalUnits: 2 });

    await listings.properties.convert(created.id, { type: 'studio' });
    await listings.properties.move(created.id, {
      addressLine1: 'Gran Via 1',
      city: 'Madrid',
      postalCode: '28013',
      latitude: 40.42,
      longitude: -3.7,
    });
    await listings.neighbourhoods.put('sol', { cityId: 'madrid', name: 'Sol' });
    expect(
      NeighbourhoodList.parse(await listings.neighbourhoods.list({ cityId: 'madrid' })),
    ).toEqual({
      neighbourhoods: [{ id: 'sol', cityId: 'madrid', name: 'Sol' }],
    });
    await listings.properties.assignNeighbourhood(created.id, { neighbourhoodId: 'sol' });
    await listings.properties.changeInformation(created.id, {
      isVisitable: true,
      yearOfConstruction: 1990,
    });
    await listings.properties.changeOwner(created.id, { ownerId: 'owner-b' });
    expect(await listings.properties.get(created.id)).toMatchObject({
      type: 'studio',
      ownerId: 'owner-b',
      isVisitable: true,
      yearOfConstruction: 1990,
      location: { addressLine1: 'Gran Via 1', neighbourhoodId: 'sol' },
    });

    await listings.properties.archive(created.id, { reasonToUnpublish: 'sold' });
    expect((await listings.properties.get(created.id)).archived).toBe(true);
    await listings.properties.unarchive(created.id);
    expect((await listings.properties.get(created.id)).archived).toBe(false);

    const page = PropertyList.parse(
      await listings.properties.list({ ownerId: 'owner-b', archived: false, itemsPerPage: 5 }),
    );
    expect(page.total).toBe(1);
    expect(page._embedded['svc:properties']?.[0]?.id).toBe(created.id);
  });

  test('POST /public/properties answers the /listings/properties/<id> location', async () => {
    const created = await listings.properties.createPublic(
      propertyBody('owner-c', { totalUnits: 3, rentableUnits: 2 }),
    );
    expect(created.location).toBe(`/listings/properties/${created.id}`);
    expect(await listings.properties.get(created.id)).toMatchObject({
      source: 'inbound',
      totalUnits: 3,
      rentableUnits: 2,
    });
  });

  test('units: add, read, change, list and delete', async () => {
    const { id } = await listings.properties.create(propertyBody('owner-d'));
    const added = await listings.units.create(id, {
      rentable: true,
      features: [{ applicability: 'unit', category: 'comfort', name: 'balcony', value: 'yes' }],
    });
    expect(added.location).toBe(`/listings/properties/${id}/units/${added.id}`);
    await listings.units.update(id, added.id, { published: true });
    expect(Unit.parse(await listings.units.get(id, added.id))).toMatchObject({
      id: added.id,
      published: true,
    });
    const page = UnitList.parse(await listings.units.list(id));
    expect(page.total).toBe(2);
    await listings.units.delete(id, added.id);
    expect((await collect(listings.units.all(id))).map((unit) => unit.id)).not.toContain(added.id);
    const withDeleted = await collect(listings.units.all(id, { includeDeleted: true }));
    expect(withDeleted.find((unit) => unit.id === added.id)?.deleted).toBe(true);
  });

  test('multi-listing counters: read, set, list', async () => {
    const { id } = await listings.properties.create(propertyBody('owner-e', { totalUnits: 4 }));
    expect(MultiListingUnit.parse(await listings.multiListingUnits.get(id))).toEqual({
      id,
      unitsCounter: 4,
    });
    await listings.multiListingUnits.set(id, { counter: 9 });
    const page = MultiListingUnitList.parse(await listings.multiListingUnits.list({ ids: [id] }));
    expect(page._embedded['svc:multi-listing-units']).toEqual([{ id, unitsCounter: 9 }]);
    expect(await collect(listings.multiListingUnits.all({ ids: [id] }))).toEqual([
      { id, unitsCounter: 9 },
    ]);
  });

  test('additional data: create, read, replace', async () => {
    const { id } = await listings.properties.create(propertyBody('owner-f'));
    const created = await listings.additionalData.create({ id, data: { floor: 3 } });
    expect(created.location).toBe(`/listings/properties/${id}/additional-data`);
    expect(AdditionalData.parse(await listings.additionalData.get(id))).toEqual({
      id,
      data: { floor: 3 },
    });
    expect(await listings.additionalData.put(id, { data: { floor: 4 } })).toEqual({
      data: { floor: 4 },
    });
  });

  test('iterating a 3-page listing yields every property exactly once', async () => {
    const owner = 'owner-pages';
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push((await listings.properties.create(propertyBody(owner))).id);

    const pages = await collect(listings.properties.pages({ ownerId: owner, itemsPerPage: 3 }));
    expect(pages.map((page) => page.count)).toEqual([3, 3, 1]);
    const items = await collect(listings.properties.all({ ownerId: owner, itemsPerPage: 3 }));
    expect(items.map((property) => property.id).sort()).toEqual(ids.sort());
    expect(new Set(items.map((property) => property.id)).size).toBe(7);
  });

  test('an idempotent POST sends one key for its retries; the service creates once', async () => {
    const keys: string[] = [];
    const { client, sleeps } = svc.recording({
      token: svc.employeeToken,
      fetch: async (request) => {
        keys.push(request.headers.get('idempotency-key') ?? '');
        const response = await fetch(request);
        // The first answer is lost on the way back: the client must retry.
        if (keys.length === 1) throw new TypeError('connection reset');
        return response;
      },
    });
    const created = await client.listings.properties.create(propertyBody('owner-idem'), {
      idempotent: true,
    });
    expect(keys).toHaveLength(2);
    expect(sleeps).toEqual([200]);
    expect(keys[0]).toBe(keys[1]!);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    const page = await listings.properties.list({ ownerId: 'owner-idem' });
    expect(page.total).toBe(1);
    expect(page._embedded['svc:properties']?.[0]?.id).toBe(created.id);
  });
});

describe('error', () => {
  test('422 is a ProblemError with nested validationMessages', async () => {
    const error = await listings.properties
      .create(propertyBody('owner-g', { totalUnits: 31 }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    const problem = error as ProblemError;
    expect(problem.status).toBe(422);
    expect(problem.title).toBe('Unprocessable Entity');
    expect(problem.validationMessages).toEqual({
      totalUnits: { notBetween: "The input is not between '1' and '30', inclusively" },
    });
  });

  test('400 is a ProblemError naming the refused parameter (invalidParams)', async () => {
    const error = await listings.properties
      .list({ itemsPerPage: 'abc' } as unknown as Parameters<typeof listings.properties.list>[0])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    const problem = error as ProblemError;
    expect(problem.status).toBe(400);
    expect(problem.invalidParams?.map((entry) => entry.name)).toEqual(['itemsPerPage']);
    expect(problem.invalidParams?.[0]?.reason).toContain('"abc"');
  });

  test('404 and 409 carry the exact problem body', async () => {
    const missing = await listings.properties.get('nope').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ProblemError);
    expect((missing as ProblemError).body).toEqual(problemOf(404));

    const { id } = await listings.properties.create(propertyBody('owner-h'));
    await listings.properties.archive(id);
    const conflict = await listings.properties.archive(id).catch((e: unknown) => e);
    expect(conflict).toMatchObject({ status: 409, title: 'Conflict' });
  });
});

describe('auth', () => {
  test('no token: 401 problem; a customer is limited to its own properties', async () => {
    const error = await svc.anonymous.listings.properties.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    expect((error as ProblemError).body).toEqual(problemOf(401));

    const customer = await svc.customer('owner-i');
    const mine = await customer.listings.properties.create(propertyBody('owner-i'));
    const theirs = await listings.properties.create(propertyBody('someone-else'));
    expect((await collect(customer.listings.properties.all())).map((p) => p.id)).toEqual([mine.id]);
    await expect(customer.listings.properties.get(theirs.id)).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      customer.listings.multiListingUnits.set(mine.id, { counter: 1 }),
    ).rejects.toMatchObject({ status: 403, title: 'Forbidden' });
  });
});
