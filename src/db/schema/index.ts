export * from './static-pages';
export * from './users';
