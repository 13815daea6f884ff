/**
 * The demo data set of `npm run demo` (scripts/demo.ts), written through the
 * stores the server uses (SQLite or PostgreSQL). Each part is skipped when it is there already, so a
 * second run adds nothing: the accounts are found by email, the properties
 * and transactions by their owner (the demo customer), plans by slug; the
 * neighbourhoods, additional data, pages and plan assignment are upserts.
 */

import { randomBytes } from 'node:crypto';
import { insertUser, type Role } from '@/accounts/users';
import { toolContext } from '@/audit/record';
import { importStaticPages } from '@/content/import';
import { StaticPageFile } from '@/content/schemas';
import type { NewTransaction } from '@/customer/store';
import { putAdditionalData } from '@/listings/additional-data/operations';
import type { CityId } from '@/listings/cities';
import type { BulkPropertyInput, BulkUnitFeature } from '@/listings/properties/bulk';
import type { Stores } from '@/stores';
import { CITIES, FEATURES, ownerIdOf, pickType, random, STREETS } from './seed';

export const DEMO_EMPLOYEE = 'demo-employee@example.com';
export const DEMO_CUSTOMER = 'demo-customer@example.com';
const PROPERTIES = 200;
const TRANSACTIONS = 300;
const DAY_MS = 24 * 3600 * 1000;

const NEIGHBOURHOODS: Partial<Record<CityId, string[]>> = {
  madrid: ['Malasaña', 'Chamberí', 'Salamanca'],
  barcelona: ['Gràcia', 'Eixample', 'El Born'],
  london: ['Camden', 'Shoreditch', 'Brixton'],
  paris: ['Le Marais', 'Montmartre', 'Belleville'],
  berlin: ['Kreuzberg', 'Mitte', 'Prenzlauer Berg'],
  rome: ['Trastevere', 'Monti', 'Testaccio'],
  lisbon: ['Alfama', 'Bairro Alto', 'Príncipe Real'],
  dublin: ['Rathmines', 'Smithfield', 'Portobello'],
};
const DEMO_CITIES = Object.keys(NEIGHBOURHOODS) as CityId[];

const slugOf = (name: string) =>
  name
    .normalize('NFD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .toLowerCase();
const neighbourhoodId = (city: CityId, name: string) => `${city}-${slugOf(name)}`;

export interface DemoAccount {
  id: string;
  email: string;
  role: Role;
  /** Only when this run created the account: it is shown once. */
  password?: string;
}

async function ensureAccount(stores: Stores, email: string, role: Role): Promise<DemoAccount> {
  const existing = await stores.accounts.findUserByEmail(email);
  if (existing) return { id: existing.id, email, role };
  const password = randomBytes(12).toString('base64url');
  const user = await insertUser(stores.accounts, { email, password, role });
  if (!user) throw new Error(`${email} was created meanwhile; run the demo again`);
  return { id: user.id, email, role, password };
}

async function fillNeighbourhoods(stores: Stores, now: number) {
  for (const city of DEMO_CITIES) {
    for (const name of NEIGHBOURHOODS[city] ?? []) {
      await stores.listings.putNeighbourhood(
        neighbourhoodId(city, name),
        { cityId: city, name },
        now,
      );
    }
  }
}

/** Page-number paging: the total is always counted. */
const FIRST = { page: 1, itemsPerPage: 1, offset: 0 };

/** The customer's first property in id order (`archived` as given), and how many match. */
async function firstProperty(stores: Stores, customerId: string, archived?: 'false') {
  const filter = { query: archived ? { archived } : {}, scopeOwner: customerId };
  const { total, rows } = await stores.listings.listProperties(filter, FIRST);
  return { total, id: rows[0]?.id };
}

/** ~30 % of the properties belong to the demo customer, the rest to five other owners. */
async function fillProperties(stores: Stores, customerId: string, employeeId: string, now: number) {
  if ((await firstProperty(stores, customerId)).total! > 0) return;
  const next = random(2024);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const rows: BulkPropertyInput[] = [];
  for (let i = 0; i < PROPERTIES; i++) {
    const cityId = pick(DEMO_CITIES);
    const city = CITIES.get(cityId)!;
    const units = Array.from({ length: 1 + Math.floor(next() * 6) }, () => {
      const features: BulkUnitFeature[] = [];
      // Twice seed's shares: a small data set still shows every feature.
      for (const [feature, share] of FEATURES) if (next() < share * 2) features.push(feature);
      return { rentable: next() < 0.9, published: next() < 0.6, features };
    });
    const multiListing = units.length > 2 && next() < 0.4;
    rows.push({
      type: pickType(next()),
      ownerId: i % 10 < 3 ? customerId : ownerIdOf(i % 5),
      location: {
        addressLine1: `${pick(STREETS)} ${1 + Math.floor(next() * 200)}`,
        ...(next() < 0.4 ? { addressLine2: `Floor ${1 + Math.floor(next() * 8)}` } : {}),
        city: city.name,
        cityId,
        postalCode: String(10000 + Math.floor(next() * 89999)),
        latitude: Math.round((city.latitude + (next() - 0.5) / 20) * 1e6) / 1e6,
        longitude: Math.round((city.longitude + (next() - 0.5) / 20) * 1e6) / 1e6,
        neighbourhoodId:
          next() < 0.8 ? neighbourhoodId(cityId, pick(NEIGHBOURHOODS[cityId] ?? [])) : null,
      },
      ...(next() < 0.8 ? { yearOfConstruction: 1890 + Math.floor(next() * 135) } : {}),
      isVisitable: next() < 0.6,
      verified: next() < 0.7,
      source: next() < 0.5 ? 'outbound' : 'inbound',
      archived: next() < 0.03,
      createdAt: Math.floor(now - 365 * DAY_MS + (i * 365 * DAY_MS) / PROPERTIES),
      units,
      ...(multiListing ? { unitsCounter: units.length + 1 + Math.floor(next() * 4) } : {}),
    });
  }
  const ids = await stores.listings.insertProperties(rows);
  const employee = { sub: employeeId, aud: 'employee' } as const;
  const ratings = ['A', 'B', 'C', 'D', 'E'];
  for (const [index, id] of ids.entries()) {
    if (index % 4 !== 0) continue;
    const data = {
      energyRating: pick(ratings),
      floorAreaM2: 30 + Math.floor(next() * 130),
      petsAllowed: next() < 0.5,
      heating: pick(['central', 'gas', 'electric', 'heat pump']),
      nearby: { metroMinutes: 2 + Math.floor(next() * 15), schools: Math.floor(next() * 4) },
    };
    await stores.listings.writeProperty(putAdditionalData(id, data, employee, now));
  }
}

/** The example pages of content/ plus translations of two of them. */
const TRANSLATIONS = [
  ['about', 'fr', 'À propos', 'Nous publions des appartements dans plus de cent villes.'],
  ['about', 'de', 'Über uns', 'Wir veröffentlichen Wohnungen in über hundert Städten.'],
  ['terms', 'es', 'Condiciones de uso', 'Al usar el servicio aceptas estas condiciones.'],
  ['terms', 'fr', "Conditions d'utilisation", 'En utilisant le service, vous les acceptez.'],
] as const;

async function fillPages(stores: Stores, contentDir: string, now: number) {
  const report = await importStaticPages(stores.content, contentDir, now);
  const translations = TRANSLATIONS.map(([slug, language, title, text]) => ({
    file: `${slug}.${language}`,
    page: StaticPageFile.parse({
      slug,
      language,
      title,
      metaTitle: `${title} | Listings Service`,
      category: slug === 'terms' ? 'legal' : 'company',
      group: 'footer',
      published: true,
      content: `# ${title}\n\n${text}`,
    }),
  }));
  await stores.content.importPages(translations, now);
  return report.refused;
}

async function fillPlans(stores: Stores, customerId: string) {
  const wanted = [
    { name: 'Starter', slug: 'starter', limits: { minute: 60, hour: 2_000, day: 20_000 } },
    { name: 'Pro', slug: 'pro', limits: { minute: 300, hour: 10_000, month: 1_000_000 } },
  ];
  const store = stores.customer;
  const existing = await store.listPlans();
  const ids: number[] = [];
  for (const plan of wanted) {
    const stored = existing.find((p) => p.slug === plan.slug);
    ids.push((stored ?? (await store.createPlan(plan, toolContext(Date.now())))).id);
  }
  await store.assignPlan(customerId, ids[1]!, toolContext(Date.now()));
}

async function fillTransactions(stores: Stores, customerId: string, now: number) {
  if ((await stores.customer.listTransactions({ customerId }, 1, 1)).total > 0) return;
  const next = random(7);
  const rows: NewTransaction[] = Array.from({ length: TRANSACTIONS }, (_, i) => {
    const status = next();
    return {
      customerId,
      bookingId: `BK-${String(100_000 + i * 37).padStart(6, '0')}`,
      amountCents: 4_500 + Math.floor(next() * 240_000),
      currency: next() < 0.85 ? 'EUR' : 'GBP',
      payDate: new Date(now - Math.floor(next() * 365) * DAY_MS).toISOString().slice(0, 10),
      status: status < 0.8 ? 'paid' : status < 0.92 ? 'pending' : 'refunded',
      description: next() < 0.7 ? `Monthly rent, unit ${1 + Math.floor(next() * 6)}` : null,
    };
  });
  await stores.customer.importTransactions(rows);
}

const TABLES = [
  'users',
  'properties',
  'units',
  'unit_features',
  'neighbourhoods',
  'property_additional_data',
  'static_pages',
  'plans',
  'plan_assignments',
  'transactions',
] as const;

/** Rows per table: what the demo prints, and what a second run must leave unchanged. */
export async function countRows(
  count: (table: string) => Promise<number>,
): Promise<Record<(typeof TABLES)[number], number>> {
  const counts = {} as Record<(typeof TABLES)[number], number>;
  for (const table of TABLES) counts[table] = await count(table);
  return counts;
}

/** Fills the stores' database (migrated) with the demo data set; answers the two accounts. */
export async function fillDemo(stores: Stores, contentDir: string, now = Date.now()) {
  const employee = await ensureAccount(stores, DEMO_EMPLOYEE, 'employee');
  const customer = await ensureAccount(stores, DEMO_CUSTOMER, 'customer');
  await fillNeighbourhoods(stores, now);
  await fillProperties(stores, customer.id, employee.id, now);
  const refusedPages = await fillPages(stores, contentDir, now);
  await fillPlans(stores, customer.id);
  await fillTransactions(stores, customer.id, now);
  const sample = await firstProperty(stores, customer.id, 'false');
  return { employee, customer, sampleProperty: sample.id, refusedPages };
}
