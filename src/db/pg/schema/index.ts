// The PostgreSQL schema: one table for each of src/db/schema/, same names and
// columns (test/db/pg-schema.test.ts holds them in step). docs/postgresql.md
// gives the type mapping.
export * from './accounts';
export * from './audit-events';
export * from './customer';
export * from './listings';
export * from './operations';
export * from './static-pages';
export * from './users';
