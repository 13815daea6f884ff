/**
 * Route options per caller requirement. The `auth` macro checks credentials
 * in `transform`, before schema validation, so 401/403 come before 400/422.
 */
export const requires = {
  any: { auth: 'any' as const },
  employee: { auth: 'employee' as const },
};
