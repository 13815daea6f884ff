export * from './accounts';
export * from './idempotency-keys';
export * from './job-runs';
export * from './listings';
export * from './static-pages';
export * from './users';
