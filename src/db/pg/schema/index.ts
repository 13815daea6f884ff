// The PostgreSQL schema: one table for each of src/db/sqlite/schema/, same names and
// columns (test/db/pg-schema.test.ts holds them in step). docs/postgresql.md
// gives the type mapping.
export * from './accounts';
export * from './audit-events';
export * from './employee-limits';
export * from './events';
export * from './idempotency-keys';
export * from './job-runs';
export * from './listings';
export * from './mail-outbox';
export * from './plan-assignments';
export * from './plans';
export * from './static-pages';
export * from './transactions';
export * from './usage-buckets';
export * from './users';
export * from './webhooks';
export * from './window-usage';
