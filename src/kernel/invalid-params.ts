import { z } from 'zod';
import type { InvalidParam } from './errors';

type Issue = z.core.$ZodIssue;

/**
 * Where refused input came from. It decides how a name is written (a query
 * parameter as clients write it, `features[0][name]`; a body field dotted,
 * `location.latitude`) and whether the value is echoed: only values of the
 * URL, which the request log already holds, never a body's (a password).
 */
export type ParamSource = 'query' | 'path' | 'body';

/** Echoed values are cut here: enough to recognise, never a whole document. */
const MAX_ECHO = 64;

/** A 400 names at most this many parameters: a body of a thousand unknown keys is one mistake. */
export const MAX_INVALID_PARAMS = 20;

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  record: 'an object',
  map: 'an object',
  null: 'null',
};

const SIZE_UNITS: Record<string, string> = { string: 'characters', array: 'values', set: 'values' };

const FORMAT_NAMES: Record<string, string> = {
  datetime: 'an ISO-8601 date-time with seconds and a zone, e.g. 2026-01-31T09:00:00Z',
  date: 'an ISO-8601 date, e.g. 2026-01-31',
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID',
};

/**
 * The schema's own sentence, when it replaced zod's (the locale's): that one
 * is the reason. Only for rules whose locale sentence zod can say again from
 * the issue; a type's names the input, which a finished issue no longer holds.
 */
function ownMessage(issue: Issue): string | undefined {
  if (issue.code === 'invalid_type' || issue.code === 'invalid_value') return undefined;
  const fallback = z.config().localeError?.(issue as never);
  const text = typeof fallback === 'string' ? fallback : fallback?.message;
  return issue.message !== text ? issue.message : undefined;
}

const listed = (values: readonly unknown[]) => values.map(String).join(', ');

function bound(issue: { origin: string; inclusive?: boolean }, limit: unknown, big: boolean) {
  const unit = SIZE_UNITS[issue.origin];
  if (unit) return `must have at ${big ? 'most' : 'least'} ${limit} ${unit}`;
  if (issue.inclusive === false) return `must be ${big ? 'below' : 'above'} ${limit}`;
  return `must be at ${big ? 'most' : 'least'} ${limit}`;
}

/** What a failed rule asks for: the schema's own sentence, else one worded to follow the name. */
const requirementOf = (issue: Issue, value: unknown): string =>
  ownMessage(issue) ?? defaultRequirement(issue, value);

function defaultRequirement(issue: Issue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return 'is required';
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      if (value === undefined) return 'is required';
      if (issue.values.length <= 2) return `must be ${issue.values.map(String).join(' or ')}`;
      return `must be one of ${listed(issue.values)}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) <= 1) return 'must not be empty';
      return bound(issue, issue.minimum, false);
    case 'too_big':
      return bound(issue, issue.maximum, true);
    case 'invalid_format':
      return issue.format === 'regex'
        ? `must match ${issue.pattern}`
        : `must be ${FORMAT_NAMES[issue.format] ?? `a valid ${issue.format}`}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    default:
      return issue.message;
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** ` (got "abc")` for a URL's text value, cut at 64 characters. */
function echo(value: unknown, source: ParamSource): string {
  if (source === 'body' || typeof value !== 'string') return '';
  const shown = value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}…` : value;
  return ` (got ${JSON.stringify(shown)})`;
}

/** The name of the body as a whole (bad JSON, not an object), beside its dotted fields. */
export const WHOLE_BODY = 'body';

/**
 * `features[0][name]` for the query and the path, `location.latitude` for a
 * body. A list parameter's item is named after the list (`cityIds`): clients
 * write a list in several forms, so its index is not one they wrote.
 */
export function paramName(path: readonly PropertyKey[], source: ParamSource): string {
  if (source === 'body') return path.length === 0 ? WHOLE_BODY : path.map(String).join('.');
  if (path.length === 2 && typeof path[1] === 'number') return String(path[0]);
  const [first, ...rest] = path.map(String);
  return `${first ?? ''}${rest.map((key) => `[${key}]`).join('')}`;
}

/** The reason of a parameter the operation does not take. */
export const notAParameter = (source: ParamSource) =>
  source === 'body' ? 'is not a field of this body' : 'is not a parameter of this operation';

/** The reason of a path parameter whose percent-encoding is not UTF-8 (`%ZZ`, `%E0%A4%A`). */
const UNDECODABLE = 'must be valid percent-encoded UTF-8';

/** The reason of a query parameter that takes one value and was given more. */
export const GIVEN_TWICE = 'is given more than once';

/**
 * The `invalidParams` of a 400, read from the zod issues of the schema that
 * refused `input`: one entry per issue, named by its path (`root` names a
 * scalar schema's own value, e.g. a path parameter parsed alone).
 */
export function invalidParamsOf(
  issues: readonly Issue[],
  input: unknown,
  source: ParamSource,
  root?: string,
): InvalidParam[] {
  const params: InvalidParam[] = [];
  const prefix = root === undefined ? [] : [root];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        params.push({
          name: paramName([...prefix, ...issue.path, key], source),
          reason: notAParameter(source),
        });
      continue;
    }
    const value = valueAt(input, issue.path);
    // A matched route always has its path parameters as text: no text means
    // the router could not decode it.
    const reason =
      source === 'path' && issue.code === 'invalid_type'
        ? UNDECODABLE
        : `${requirementOf(issue, value)}${echo(value, source)}`;
    params.push({ name: paramName([...prefix, ...issue.path], source), reason });
  }
  return params.slice(0, MAX_INVALID_PARAMS);
}
