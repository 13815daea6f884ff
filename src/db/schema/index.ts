export * from './idempotency-keys';
export * from './users';
