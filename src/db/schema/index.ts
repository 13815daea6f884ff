export * from './job-runs';
export * from './users';
