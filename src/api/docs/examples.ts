/**
 * An example request body per operation that takes one, by operationId.
 * test/api/docs.test.ts checks each against the route's own body schema, so
 * an example cannot drift from what the service accepts.
 */
const location = {
  addressLine1: 'Calle Mayor 5',
  addressLine2: '3º B',
  city: 'Madrid',
  cityId: 'madrid',
  postalCode: '28013',
  latitude: 40.4168,
  longitude: -3.7038,
};

const property = {
  type: 'apartment',
  ownerId: '0192f3b4-6c1e-7a3d-9b2f-1c4d5e6f7a8b',
  location,
  totalUnits: 3,
  rentableUnits: 2,
  isVisitable: true,
  yearOfConstruction: 1998,
};

const feature = { applicability: 'unit', category: 'comfort', name: 'balcony', value: 'true' };

/** A browser's WebAuthn result has this shape; real values come from navigator.credentials. */
const credential = { id: 'q83vEjRWeJA', rawId: 'q83vEjRWeJA', type: 'public-key' };

export const EXAMPLES: Readonly<Record<string, unknown>> = {
  createProperty: property,
  createPublicProperty: property,
  archiveProperty: { reasonToUnpublish: 'sold', reasonToUnpublishExtraInfo: 'Sold in March' },
  convertProperty: { type: 'studio' },
  moveProperty: location,
  assignNeighbourhood: { neighbourhoodId: 'madrid-centro' },
  changeOwner: { ownerId: '0192f3b4-6c1e-7a3d-9b2f-1c4d5e6f7a8c' },
  changeInformation: { isVisitable: false, yearOfConstruction: 2004 },
  createUnit: { rentable: true, features: [feature] },
  updateUnit: { published: true, features: [feature] },
  putNeighbourhood: { cityId: 'madrid', name: 'Centro' },
  createWebhook: {
    url: 'https://portal.example.com/hooks/listings',
    types: ['property.created', 'unit.updated'],
    description: 'Portal sync',
  },
  updateWebhook: { enabled: true },
  setMultiListingUnit: { counter: 4 },
  createAdditionalData: {
    id: '0192f3b4-6c1e-7a3d-9b2f-1c4d5e6f7a8b',
    data: { energyRating: 'B', parking: { spaces: 1 } },
  },
  putAdditionalData: { data: { energyRating: 'A' } },
  putStaticPage: {
    language: 'en',
    title: 'About us',
    content: '# About us\n\nWho we are.',
    metaTitle: 'About us',
    metaDescription: 'Who we are',
    category: 'company',
    group: 'footer',
    published: true,
  },
  createPlan: { name: 'Pro', slug: 'pro', limits: { minute: 300, day: 100000 } },
  updatePlan: { name: 'Pro', slug: 'pro', limits: { minute: 600, month: 1000000 } },
  assignPlan: { planId: 2 },
  setEmployeeRateLimit: { perMinute: 10000 },
  importTransactions: [
    {
      customer_id: 'customer-1',
      booking_id: 'BK-1001',
      amount: '1234.50',
      currency: 'EUR',
      pay_date: '2026-11-22',
      status: 'paid',
      description: 'November rent',
    },
  ],
  signUp: { email: 'ana@example.com', password: 'correct horse battery' },
  createUser: { email: 'ops@example.com', password: 'correct horse battery', role: 'employee' },
  signIn: { email: 'ana@example.com', password: 'correct horse battery' },
  passkeyRegistrationOptions: {},
  registerPasskey: {
    name: 'Laptop',
    response: {
      ...credential,
      response: {
        clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0',
        attestationObject: 'o2NmbXRkbm9uZQ',
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    },
  },
  passkeyAuthenticationOptions: { email: 'ana@example.com' },
  authenticateWithPasskey: {
    response: {
      ...credential,
      response: {
        clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0',
        authenticatorData: 'SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ',
        signature: 'MEUCIQDx',
      },
      clientExtensionResults: {},
    },
  },
  renamePasskey: { name: 'Work laptop' },
  changePassword: { currentPassword: 'correct horse battery', newPassword: 'a new passphrase' },
  requestPasswordReset: { email: 'ana@example.com' },
  confirmPasswordReset: {
    token: 'kq5V0pP7cYw3xq0m3tKJ4nC0s1H9a8b7c6d5e4f3g2h',
    password: 'a new passphrase',
  },
  requestEmailChange: { email: 'ana.new@example.com', currentPassword: 'correct horse battery' },
  confirmEmailLink: { token: 'kq5V0pP7cYw3xq0m3tKJ4nC0s1H9a8b7c6d5e4f3g2h' },
  changeUser: { disabled: true },
  setUserPassword: { password: 'a new passphrase' },
};
