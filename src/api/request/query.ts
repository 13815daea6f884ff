import type { z } from 'zod';
import { fail } from '@/kernel/errors';
import { GIVEN_TWICE, invalidParamsOf } from '@/kernel/invalid-params';

/**
 * The query string checked against a strict schema once the caller is known
 * (a declared query schema would be checked before the credential): a
 * repeated, unknown or malformed parameter is a 400.
 */
export function parsedQuery<T extends z.ZodType>(schema: T, url: string): z.output<T> {
  const params = new URL(url).searchParams;
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name))
      throw fail('request.malformed', { invalidParams: [{ name, reason: GIVEN_TWICE }] });
    seen.add(name);
  }
  // fromEntries defines own properties: a parameter `__proto__` is a field like any other.
  const fields = Object.fromEntries(params);
  const result = schema.safeParse(fields);
  if (!result.success) {
    const invalidParams = invalidParamsOf(result.error.issues, fields, 'query');
    throw fail('request.malformed', { invalidParams });
  }
  return result.data;
}
