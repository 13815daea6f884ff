import { expect } from 'bun:test';
import { PropertyList } from '@/api/listings/properties/routes';
import type { HalCollection } from '@/listings/paging';
import type { Property } from '@/listings/properties/schemas';
import type { StoreUnderTest } from '../../support/stores-under-test';
import type { ListingsTestApp } from '../stores';
import { OTHER_OWNER, OWNER } from '../support';

export type List = HalCollection<Property, 'svc:properties'>;

const feature = (name: string, value = 'yes', category = 'amenities', applicability = 'unit') => ({
  applicability,
  category,
  name,
  value,
});

/**
 * The list suites' data on the store under test: five properties, one of
 * each shape the filters tell apart (ids ascend in this order), and the
 * helpers that read the list as an employee (or `token`) and check the
 * answer's shape.
 */
export interface PropertyListFixture {
  ctx: ListingsTestApp;
  madrid: string;
  paris: string;
  london: string;
  madrid2: string;
  berlin: string;
  all: string[];
  /** A unit of berlin with the feature `sauna`, deleted. */
  deletedSaunaUnit: string;
  unitOf(propertyId: string, index: number): string;
  list(query: string, token?: string): Promise<List>;
  idsOf(query: string, token?: string): Promise<string[]>;
}

export async function seedPropertyList(
  store: StoreUnderTest<ListingsTestApp>,
): Promise<PropertyListFixture> {
  const ctx = await store.app();
  const units = new Map<string, string[]>();
  const unitOf = (propertyId: string, index: number) => units.get(propertyId)![index]!;
  async function list(query: string, token = ctx.employee) {
    const res = await ctx.request<List>('GET', `/listings/properties${query}`, { token });
    expect(res.status).toBe(200);
    expect(PropertyList.safeParse(res.body).success).toBe(true);
    return res.body;
  }
  const idsOf = async (query: string, token?: string) =>
    (await list(query, token))._embedded['svc:properties'].map((property) => property.id);
  const madrid = await ctx.makeProperty({
    type: 'apartment',
    ownerId: OWNER,
    units: [{ rentable: true, features: [feature('balcony'), feature('lift', 'no', 'building')] }],
  });
  const paris = await ctx.makeProperty({
    type: 'studio',
    ownerId: OTHER_OWNER,
    location: {
      addressLine1: '10 Rue 50%_off',
      addressLine2: 'Bâtiment Ü',
      city: 'Paris',
      cityId: 'paris',
      postalCode: '75001',
      latitude: 48.8,
      longitude: 2.3,
    },
    units: [
      { rentable: true, published: true, features: [feature('balcony', 'no')] },
      { rentable: true, features: [feature('lift')] },
      { rentable: false },
    ],
  });
  const london = await ctx.makeProperty({
    type: 'roomShared',
    ownerId: OWNER,
    archived: true,
    location: {
      addressLine1: '221B Baker Street',
      city: 'London',
      cityId: 'london',
      postalCode: 'NW1 6XE',
      latitude: 51.5,
      longitude: -0.15,
    },
    totalUnits: 5,
    rentableUnits: 5,
  });
  const madrid2 = await ctx.makeProperty({
    type: 'residence',
    ownerId: 'owner-3',
    location: {
      addressLine1: 'Gran Vía 1',
      city: 'Madrid',
      cityId: 'madrid',
      postalCode: '28001',
      latitude: 40.42,
      longitude: -3.7,
    },
    units: [
      { rentable: true, published: true, features: [feature('balcony'), feature('pool')] },
      { rentable: false },
    ],
  });
  const berlin = await ctx.makeProperty({
    type: 'apartment',
    ownerId: OTHER_OWNER,
    location: {
      addressLine1: 'Unter den Linden 1',
      city: 'Berlin',
      cityId: 'berlin',
      postalCode: '10117',
      latitude: 52.5,
      longitude: 13.4,
    },
    units: [
      { rentable: true },
      { rentable: true },
      { rentable: true },
      { rentable: true, features: [feature('sauna')] },
    ],
  });
  const all = [madrid, paris, london, madrid2, berlin];
  for (const property of all) units.set(property, await ctx.unitIdsOf(property));
  const deletedSaunaUnit = unitOf(berlin, 3);
  await ctx.deleteUnit(berlin, deletedSaunaUnit);
  return {
    ctx,
    madrid,
    paris,
    london,
    madrid2,
    berlin,
    all,
    deletedSaunaUnit,
    unitOf,
    list,
    idsOf,
  };
}
