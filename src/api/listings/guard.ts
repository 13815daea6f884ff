/**
 * Route options per caller requirement. The `auth` macro checks credentials
 * before the body is read (src/api/plugins/auth.ts), so 401/403 come before
 * 400/413/415/422.
 */
export const requires = {
  any: { auth: 'any' as const },
  employee: { auth: 'employee' as const },
};
