import type { z } from 'zod';

/** A bad setting: its message is one line naming the variable or file, never a secret. */
export class ConfigError extends Error {}

/** Variables whose values never appear in an error message. */
const SECRET_VARIABLES = new Set(['JWT_SECRET', 'METRICS_TOKEN', 'DATABASE_URL', 'SMTP_PASSWORD']);

/**
 * A URL as an error message may show it: everything before its last `@`
 * (user and password, even one with an unescaped `/`, `#` or `@` that made
 * the URL malformed) replaced by `***`.
 */
function withoutCredentials(value: string): string {
  return value.replace(/^([a-z][\w+.-]*:\/\/)?.*@/is, '$1***@');
}

/** One line naming the first rejected variable. */
export function configErrorOf(
  error: z.ZodError,
  source: Record<string, string | undefined>,
): ConfigError {
  const issue = error.issues[0]!;
  const name = String(issue.path[0]);
  return new ConfigError(`${name}: ${issue.message} (got ${shownValue(name, source[name])})`);
}

/** A value as an error message may show it: a secret only by its length, enough to act on. */
export function shownValue(name: string, value: string | undefined): string {
  return SECRET_VARIABLES.has(name)
    ? `${value?.length ?? 0} characters, not shown`
    : `"${withoutCredentials(value ?? '')}"`;
}
