export * from './idempotency-keys';
export * from './job-runs';
export * from './users';
