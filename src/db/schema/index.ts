export * from './accounts';
export * from './users';
