/**
 * Emails are stored and compared lower-cased (JavaScript's `toLowerCase`,
 * the same on every store): one account per email whatever its case.
 */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();
