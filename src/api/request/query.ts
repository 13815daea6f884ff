import type { z } from 'zod';
import { fail } from '@/kernel/errors';

/**
 * The query string checked against a strict schema once the caller is known
 * (a declared query schema would be checked before the credential): a
 * repeated, unknown or malformed parameter is a 400.
 */
export function parsedQuery<T extends z.ZodType>(schema: T, url: string): z.output<T> {
  const params = new URL(url).searchParams;
  const entries = [...params];
  const fields = Object.fromEntries(entries);
  if (Object.keys(fields).length !== entries.length) throw fail('request.malformed');
  const result = schema.safeParse(fields);
  if (!result.success) throw fail('request.malformed');
  return result.data;
}
