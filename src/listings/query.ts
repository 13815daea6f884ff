import type { z } from 'zod';
import { fail } from '@/kernel/errors';

/** More parameters than this in one list query is not a real client (400). */
const MAX_PARAMETERS = 300;
const FEATURE_PARTS = ['applicability', 'category', 'name', 'value'] as const;
export type FeaturePart = (typeof FEATURE_PARTS)[number];
export type FeatureCriterion = Partial<Record<FeaturePart, string>>;

export interface QueryShape {
  /** Parameters that carry one value; given twice → 400. */
  scalars: readonly string[];
  /** Parameters that carry a list: `k=a&k=b`, `k[]=a`, `k[0]=a` or `k=a,b` (docs/listings.md). */
  arrays: readonly string[];
  /** Whether `features[i][applicability|category|name|value]` is accepted. */
  features?: boolean;
}

const ARRAY_KEY = /^([A-Za-z_]\w*)(?:\[(\d{0,3})\])?$/;
const FEATURE_KEY = /^features\[(\d{1,3})\]\[(\w+)\]$/;

/**
 * Reads a list query straight from the URL: `k=a&k=b`, `k[]=a`, `k[0]=a` and
 * `k=a,b` all give `k: ['a', 'b']`; `features[i][part]` gives an array of
 * criteria in index order. An empty value counts as absent. Unknown or
 * repeated scalar parameters → 400; the result is then checked by `schema`.
 */
export function parseListQuery<S extends z.ZodType>(
  search: string,
  shape: QueryShape,
  schema: S,
): z.output<S> {
  const params = new URLSearchParams(search);
  const out: Record<string, unknown> = {};
  const arrays = new Map<string, string[]>();
  const features = new Map<number, FeatureCriterion>();
  let seen = 0;
  for (const [key, value] of params) {
    if (++seen > MAX_PARAMETERS) throw fail('listings.query_invalid');
    if (shape.scalars.includes(key)) {
      if (key in out) throw fail('listings.query_invalid');
      if (value !== '') out[key] = value;
      continue;
    }
    const feature = shape.features ? FEATURE_KEY.exec(key) : null;
    if (feature) {
      const part = feature[2] as FeaturePart;
      if (!FEATURE_PARTS.includes(part)) throw fail('listings.query_invalid');
      const index = Number(feature[1]);
      const criterion = features.get(index) ?? {};
      if (part in criterion) throw fail('listings.query_invalid');
      if (value !== '') criterion[part] = value;
      features.set(index, criterion);
      continue;
    }
    const array = ARRAY_KEY.exec(key);
    if (!array || !shape.arrays.includes(array[1]!)) throw fail('listings.query_invalid');
    const values = arrays.get(array[1]!) ?? [];
    for (const item of value.split(',')) if (item !== '') values.push(item);
    arrays.set(array[1]!, values);
  }
  for (const [key, values] of arrays) if (values.length > 0) out[key] = values;
  const criteria = [...features.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, criterion]) => criterion)
    .filter((criterion) => Object.keys(criterion).length > 0);
  if (criteria.length > 0) out.features = criteria;
  const parsed = schema.safeParse(out);
  if (!parsed.success) throw fail('listings.query_invalid');
  return parsed.data;
}
