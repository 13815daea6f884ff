export * from './employee-limits';
export * from './plan-assignments';
export * from './plans';
export * from './transactions';
export * from './users';
export * from './window-usage';
