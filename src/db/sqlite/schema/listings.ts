// Tables of the listings API (src/api/listings).
export * from './neighbourhoods';
export * from './properties';
export * from './property-additional-data';
export * from './property-counts';
export * from './property-sort-changes';
export * from './units';
