// The runtime's ceiling on this machine: a bare Bun.serve answering a fixed
// JSON body of about 600 bytes, measured in the same run as the service.
const property = {
  id: '0192f5e4-7b1c-7d2a-9c3e-5f6a7b8c9d0e',
  type: 'apartment',
  location: {
    addressLine1: 'Calle de Alcalá 123',
    addressLine2: '2º izquierda',
    city: 'Madrid',
    cityId: 'madrid',
    neighbourhoodId: null,
    postalCode: '28009',
    country: 'ES',
    latitude: 40.4237,
    longitude: -3.6768,
  },
  ownerId: '0192f5e4-0000-7000-8000-000000000001',
  totalUnits: 5,
  rentableUnits: 5,
  publishedUnits: 2,
  verified: false,
  yearOfConstruction: 1998,
  isVisitable: true,
  source: 'outbound',
  archived: false,
  published: true,
  createdAt: '2026-11-22T12:00:00.000Z',
  updatedAt: '2026-11-22T12:00:00.000Z',
};
export const CEILING_BODY = JSON.stringify(property);

if (import.meta.main) {
  const port = Number(process.env.PORT ?? 3100);
  Bun.serve({
    port,
    hostname: '127.0.0.1',
    fetch: () => new Response(CEILING_BODY, { headers: { 'content-type': 'application/json' } }),
  });
  console.log(`ceiling listening on ${port} (${CEILING_BODY.length} bytes)`);
}
