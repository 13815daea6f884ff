import { fail } from '@/kernel/errors';
import { TransactionQuery } from './schemas';

const KEYS: ReadonlySet<string> = new Set(Object.keys(TransactionQuery.shape));

/** A key or value as written: `+` is a space, `%` escapes decoded, a bad escape kept as is. */
function decoded(text: string): string {
  const spaced = text.includes('+') ? text.replaceAll('+', ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced) || spaced;
  } catch {
    return spaced;
  }
}

/**
 * Values the query's reading takes for a list or an object rather than a
 * string: `a,b`, or `[…]` / `{…}` that is valid JSON.
 */
function isStructured(value: string): boolean {
  const first = value[0];
  const last = value[value.length - 1];
  if ((first === '[' && last === ']') || (first === '{' && last === '}')) {
    try {
      JSON.parse(value);
      return true;
    } catch {
      return false;
    }
  }
  return value.includes(',');
}

/**
 * GET /api/v1/c/transactions's query string (with its `?`, or '') as its
 * parameters: unknown keys are ignored; a known key given twice, or given a
 * list or an object (`a,b`, `[…]`, `{…}`), is a malformed request (400).
 * Every other rule is `parseTransactionQuery`'s (422).
 */
export function transactionQueryOf(search: string): TransactionQuery {
  const query: Record<string, string> = {};
  for (const pair of search.slice(1).split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const key = decoded(at < 0 ? pair : pair.slice(0, at));
    if (!KEYS.has(key)) continue;
    const value = at < 0 ? '' : decoded(pair.slice(at + 1));
    if (key in query || isStructured(value)) throw fail('request.malformed');
    query[key] = value;
  }
  return query;
}
