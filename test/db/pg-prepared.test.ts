import { afterEach, beforeAll, expect, spyOn, test } from 'bun:test';
import { PgDialect } from 'drizzle-orm/pg-core';
import { toolContext } from '@/audit/record';
import { postgresContentStore } from '@/content/postgres-store';
import { postgresCustomerStore } from '@/customer/postgres-store';
import { postgresListingsStore } from '@/listings/postgres-store';
import { suiteDatabases } from '../support/postgres';

/**
 * The hottest PostgreSQL reads never have drizzle build their SQL, which
 * costs several times their round trip: a property by id is fixed text
 * (`selectRecords`); a static page the cache missed and the limiter's plan
 * and employee limit are drizzle queries prepared when the store is made.
 */
const databases = suiteDatabases();
const audit = { ...toolContext(Date.UTC(2026, 10, 26)), actor: 'admin', requestId: 'r-1' };

databases.describe('prepared reads', () => {
  let stores: {
    listings: ReturnType<typeof postgresListingsStore>;
    content: ReturnType<typeof postgresContentStore>;
    customer: ReturnType<typeof postgresCustomerStore>;
  };
  let propertyId: string;

  beforeAll(async () => {
    const { client } = await databases.withClient();
    stores = {
      listings: postgresListingsStore(client),
      content: postgresContentStore(client),
      customer: postgresCustomerStore(client),
    };
    const ids = await stores.listings.insertProperties([
      {
        type: 'studio',
        ownerId: 'owner-1',
        location: {
          addressLine1: 'Calle Mayor 1',
          city: 'Madrid',
          cityId: 'madrid',
          postalCode: '28013',
          latitude: 40.4,
          longitude: -3.7,
        },
      },
    ]);
    propertyId = ids[0]!;
    await stores.customer.setEmployeeLimit('employee-1', 7, audit);
  });

  let building: ReturnType<typeof spyOn>;
  afterEach(() => building?.mockRestore());
  const watchBuilding = () => {
    building = spyOn(PgDialect.prototype, 'sqlToQuery');
    return building;
  };

  test('a property by id is read without building its SQL', async () => {
    const built = watchBuilding();
    for (let i = 0; i < 3; i++) {
      expect(await stores.listings.propertyById(propertyId)).toMatchObject({
        id: propertyId,
        type: 'studio',
        owner_id: 'owner-1',
        verified: 0,
      });
    }
    expect(await stores.listings.propertyById('missing')).toBeNull();
    expect(built).not.toHaveBeenCalled();
  });

  test("the limiter's reads and a static page's variants are read without building their SQL", async () => {
    const built = watchBuilding();
    expect(await stores.customer.employeeLimit('employee-1')).toBe(7);
    expect(await stores.customer.employeeLimit('employee-2')).toBeUndefined();
    expect(await stores.customer.customerPlan('customer-1')).toBeUndefined();
    expect(await stores.content.publishedVariants('about')).toEqual([]);
    expect(built).not.toHaveBeenCalled();
  });

  test('the watch sees an unprepared query being built', async () => {
    const built = watchBuilding();
    await stores.customer.listPlans();
    expect(built).toHaveBeenCalled();
  });
});
