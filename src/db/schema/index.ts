// The tables, each declared once; src/db/sqlite/schema and src/db/pg/schema
// map them into each dialect's drizzle tables.
export * from './accounts';
export * from './audit-events';
export * from './employee-limits';
export * from './events';
export * from './idempotency-keys';
export * from './job-runs';
export * from './mail-outbox';
export * from './neighbourhoods';
export * from './plan-assignments';
export * from './plans';
export * from './properties';
export * from './property-additional-data';
export * from './property-counts';
export * from './property-sort-changes';
export * from './static-pages';
export * from './transactions';
export * from './units';
export * from './usage-buckets';
export * from './users';
export * from './webhooks';
export * from './window-usage';
