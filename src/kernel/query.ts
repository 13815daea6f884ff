import { z } from 'zod';
import { fail, type InvalidParam } from '@/kernel/errors';
import { GIVEN_TWICE, invalidParamsOf, notAParameter } from '@/kernel/invalid-params';

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

/**
 * The shape of a list query's zod object, read once at module load: an
 * array of objects is `features`, any other array a list parameter, the
 * rest scalars. The schema stays the one place a parameter is declared.
 */
export function shapeOf(schema: z.ZodObject): QueryShape {
  const scalars: string[] = [];
  const arrays: string[] = [];
  let features = false;
  for (const [key, field] of Object.entries(schema.shape)) {
    const inner = field instanceof z.ZodOptional ? field.unwrap() : field;
    if (!(inner instanceof z.ZodArray)) scalars.push(key);
    else if (key === 'features' && inner.element instanceof z.ZodObject) features = true;
    else arrays.push(key);
  }
  return { scalars, arrays, features };
}

/** How clients write a parameter the service reads as text, for the OpenAPI document. */
const CLIENT_FORMS = new WeakMap<z.ZodType, { form: z.ZodType; description?: string }>();

/**
 * `text`, remembered as written by clients in `form` (an integer with its
 * bounds, a boolean): `parametersOf` documents it so. `description`, when
 * given, replaces the text field's in the document.
 */
export function writtenAs<T extends z.ZodType>(text: T, form: z.ZodType, description?: string): T {
  CLIENT_FORMS.set(text, { form, description });
  return text;
}

/**
 * Digits matching `pattern` (which holds `form`'s bounds), documented as the
 * integer `form`; a refusal says the bounds (docs/errors.md#bad-requests).
 */
export const integerText = (pattern: RegExp, form: z.ZodNumber, description?: string) =>
  writtenAs(
    z.string().regex(pattern, `must be an integer from ${form.minValue} to ${form.maxValue}`),
    form,
    description,
  );

/** Text `true` or `false`, documented as a boolean. */
export const Flag = writtenAs(z.enum(['true', 'false']), z.boolean());

/**
 * A list query's parameters as clients write them, for the OpenAPI document
 * only: each field made with `writtenAs` in its client form, the others as
 * they are. The routes parse the raw URL with the text schema, which stays
 * the rule.
 */
export function parametersOf<S extends z.ZodObject>(schema: S): z.ZodObject {
  const fields: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const inner = field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field;
    const written = CLIENT_FORMS.get(inner);
    if (!written) fields[key] = field;
    else {
      const description = written.description ?? field.description;
      const form = field === inner ? written.form : written.form.optional();
      fields[key] = description === undefined ? form : form.describe(description);
    }
  }
  return z.strictObject(fields);
}

const refused = (...invalidParams: InvalidParam[]) => fail('query.invalid', { invalidParams });
const notTaken = (name: string) => refused({ name, reason: notAParameter('query') });

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
    if (++seen > MAX_PARAMETERS)
      throw refused({
        name: key,
        reason: `is past the limit of ${MAX_PARAMETERS} parameters of a list query`,
      });
    if (shape.scalars.includes(key)) {
      if (key in out) throw refused({ name: key, reason: GIVEN_TWICE });
      if (value !== '') out[key] = value;
      continue;
    }
    const feature = shape.features ? FEATURE_KEY.exec(key) : null;
    if (feature) {
      const part = feature[2] as FeaturePart;
      if (!FEATURE_PARTS.includes(part)) throw notTaken(key);
      const index = Number(feature[1]);
      const criterion = features.get(index) ?? {};
      if (part in criterion) throw refused({ name: key, reason: GIVEN_TWICE });
      if (value !== '') criterion[part] = value;
      features.set(index, criterion);
      continue;
    }
    const array = ARRAY_KEY.exec(key);
    if (!array || !shape.arrays.includes(array[1]!)) throw notTaken(key);
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
  if (!parsed.success) throw refused(...invalidParamsOf(parsed.error.issues, out, 'query'));
  return parsed.data;
}
