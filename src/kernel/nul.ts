/**
 * NUL (U+0000) in text: PostgreSQL's text and jsonb cannot hold it, SQLite
 * can. So that both databases give the same answer, a request body holding
 * one anywhere is refused at the boundary, as the route refuses any bad body
 * (docs/errors.md), and a lookup by a value holding one finds nothing
 * without asking the database.
 */
export const NUL_MESSAGE = 'The field must not contain the NUL character (U+0000).';

/** Whether any of `values` holds NUL. */
export const holdsNul = (...values: readonly (string | null | undefined)[]): boolean =>
  values.some((value) => value?.includes('\u0000') ?? false);

/**
 * Where the first NUL inside a parsed JSON value is: the path of the string
 * holding it, or of the object whose key holds it (a key is never echoed);
 * undefined when there is none.
 */
export function nulPathOf(
  value: unknown,
  path: readonly (string | number)[] = [],
): readonly (string | number)[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = nulPathOf(item, [...path, index]);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return path;
    const found = nulPathOf(item, [...path, key]);
    if (found) return found;
  }
  return undefined;
}
