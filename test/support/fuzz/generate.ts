/**
 * Valid values from JSON Schema: the subset `z.toJSONSchema` emits (type,
 * properties, required, enum, const, anyOf/oneOf/allOf, items/prefixItems,
 * minimum/maximum, lengths, format, pattern by sampling, additionalProperties,
 * propertyNames, $ref/$defs). Deterministic for a seed.
 */

export type Schema = { [keyword: string]: unknown };
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** mulberry32: small, fast and good enough to drive a fuzzer. */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Random characters from an alphabet. */
  chars(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}

/** A 32-bit seed from any number of integers (the run seed and a request index). */
export function mixSeed(...parts: number[]): number {
  let hash = 2166136261;
  for (const part of parts) {
    hash = Math.imul(hash ^ (part >>> 0), 16777619);
    hash = Math.imul(hash ^ (hash >>> 13), 0x5bd1e995);
  }
  return (hash ^ (hash >>> 15)) >>> 0;
}

/** FUZZ_SEED when set (decimal), otherwise a fresh one; the caller prints it. */
export function seedFromEnv(env: Record<string, string | undefined> = process.env): number {
  const given = env.FUZZ_SEED;
  if (given !== undefined && given !== '' && Number.isInteger(Number(given)))
    return Number(given) >>> 0;
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}

/** Strings tried against a `pattern`: one that matches (and fits the lengths) is used. */
const PATTERN_SAMPLES = [
  'en',
  'es',
  'es-ES',
  'fr-FR',
  'about',
  'terms-of-use',
  'faq-2026',
  'abc',
  'a1',
  'A',
  'ES',
  '2026-01-15',
  '2026-11-22T12:00:00Z',
  '2026-11-22T12:00:00.000Z',
  '12:00:00',
  '1234.50',
  '10.00',
  '0',
  '1',
  '42',
  'true',
  'false',
  'madrid',
  'user@example.com',
  'https://example.com/',
  '01890a5d-ac96-774b-bcce-b302099a8057',
  'AbC123',
];

function compilePattern(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    try {
      return new RegExp(pattern);
    } catch {
      return undefined;
    }
  }
}

const hex = (rng: Rng, length: number) => rng.chars(length, '0123456789abcdef');

export function uuid(rng: Rng): string {
  const variant = rng.pick(['8', '9', 'a', 'b']);
  return `${hex(rng, 8)}-${hex(rng, 4)}-7${hex(rng, 3)}-${variant}${hex(rng, 3)}-${hex(rng, 12)}`;
}

function isoDate(rng: Rng): Date {
  return new Date(
    Date.UTC(
      rng.int(2000, 2030),
      rng.int(0, 11),
      rng.int(1, 28),
      rng.int(0, 23),
      rng.int(0, 59),
      rng.int(0, 59),
    ),
  );
}

function formatted(format: string, rng: Rng): string | undefined {
  switch (format) {
    case 'date-time':
      return isoDate(rng).toISOString();
    case 'date':
      return isoDate(rng).toISOString().slice(0, 10);
    case 'time':
      return isoDate(rng).toISOString().slice(11, 19);
    case 'email':
      return `${rng.chars(rng.int(1, 10))}@example.com`;
    case 'uuid':
    case 'guid':
      return uuid(rng);
    case 'uri':
    case 'url':
      return `https://example.com/${rng.chars(rng.int(0, 8))}`;
    case 'hostname':
      return `${rng.chars(6)}.example.com`;
    case 'ipv4':
      return `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
    case 'ipv6':
      return `fd00::${hex(rng, 4)}`;
    case 'duration':
      return `PT${rng.int(1, 59)}M`;
    case 'base64':
      return btoa(rng.chars(rng.int(1, 12)));
    case 'base64url':
      return btoa(rng.chars(rng.int(1, 12)))
        .replace(/=+$/, '')
        .replace(/\+/g, '-')
        .replace(/\//g, '_');
    default:
      return undefined;
  }
}

export interface GenerateOptions {
  rng: Rng;
  /** Resolves `$ref`s that point outside the schema (`#/components/schemas/X`). */
  resolveRef?: (ref: string) => Schema | undefined;
  /**
   * A known real value for a named string field (an id seen in an earlier
   * response, a token's subject), or undefined to generate one.
   */
  known?: (name: string) => string | undefined;
  /** Chance that an optional property is present (default 0.6). */
  optionalChance?: number;
}

interface Walk {
  options: GenerateOptions;
  root: Schema;
  depth: number;
  name: string;
}

/** Follows a `$ref`: local (`#/$defs/X`, `#`) against the root, others through the resolver. */
export function deref(
  schema: Schema,
  root: Schema,
  resolveRef?: (ref: string) => Schema | undefined,
): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 32; hops++) {
    const ref = current.$ref;
    let target: unknown;
    if (ref === '#') target = root;
    else if (ref.startsWith('#/') && !ref.startsWith('#/components/')) {
      target = ref
        .slice(2)
        .split('/')
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], root);
    } else target = resolveRef?.(ref);
    if (!target || typeof target !== 'object') return {};
    const { $ref: _, ...siblings } = current;
    current = { ...(target as Schema), ...siblings };
  }
  return current;
}

const typesOf = (schema: Schema): string[] => {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties || schema.additionalProperties || schema.propertyNames) return ['object'];
  if (schema.items || schema.prefixItems) return ['array'];
  return [];
};

/** Any small JSON value, for `{}` / `true` schemas. */
export function anyValue(rng: Rng, depth = 0): JsonValue {
  switch (rng.int(0, depth > 1 ? 3 : 5)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.int(-1000, 1000);
    case 3:
      return rng.chars(rng.int(0, 12));
    case 4:
      return Array.from({ length: rng.int(0, 3) }, () => anyValue(rng, depth + 1));
    default: {
      const out: Record<string, JsonValue> = {};
      for (let i = rng.int(0, 3); i > 0; i--)
        out[rng.chars(rng.int(1, 8))] = anyValue(rng, depth + 1);
      return out;
    }
  }
}

function generateString(schema: Schema, walk: Walk): string {
  const { rng, known } = walk.options;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  const fits = (value: string) => value.length >= min && value.length <= max;
  const real = known?.(walk.name);
  if (real !== undefined && fits(real) && rng.chance(0.7)) return real;
  if (typeof schema.format === 'string') {
    const value = formatted(schema.format, rng);
    if (value !== undefined && fits(value)) return value;
  }
  if (typeof schema.pattern === 'string') {
    const pattern = compilePattern(schema.pattern);
    const matching = pattern ? PATTERN_SAMPLES.filter((s) => fits(s) && pattern.test(s)) : [];
    if (matching.length > 0) return rng.pick(matching);
  }
  const length = rng.int(min, Math.min(max, min + 16));
  return rng.chars(length, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_');
}

function generateNumber(schema: Schema, integer: boolean, rng: Rng): number {
  let min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  let max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  if (typeof schema.exclusiveMinimum === 'number')
    min = schema.exclusiveMinimum + (integer ? 1 : 1e-6);
  if (typeof schema.exclusiveMaximum === 'number')
    max = schema.exclusiveMaximum - (integer ? 1 : 1e-6);
  // Unbounded sides stay near the other bound: small, plausible values.
  if (min === undefined && max === undefined) [min, max] = [0, 100];
  else if (min === undefined) min = Math.min(0, max! - 100);
  else if (max === undefined) max = Math.max(min + 100, 100);
  min = Math.max(min!, -Number.MAX_SAFE_INTEGER);
  max = Math.min(max!, Number.MAX_SAFE_INTEGER);
  const step =
    typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  if (integer || step) {
    const unit = step ?? 1;
    const lo = Math.ceil(min / unit);
    const hi = Math.floor(max / unit);
    if (hi < lo) return min;
    // Bounds are favoured: off-by-one bugs live there.
    const pickUnits = rng.chance(0.2) ? rng.pick([lo, hi]) : rng.int(lo, Math.min(hi, lo + 1000));
    return pickUnits * unit;
  }
  if (rng.chance(0.2)) return rng.pick([min, max]);
  return min + rng.next() * (max - min);
}

function generateObject(schema: Schema, walk: Walk): Record<string, unknown> {
  const { rng } = walk.options;
  const out: Record<string, unknown> = {};
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const optionalChance = walk.options.optionalChance ?? 0.6;
  for (const [key, child] of Object.entries(properties)) {
    if (!required.has(key) && !rng.chance(optionalChance)) continue;
    out[key] = generateAt(child, { ...walk, depth: walk.depth + 1, name: key });
  }
  const extra = schema.additionalProperties;
  if (Object.keys(properties).length === 0 && extra !== false && extra !== undefined) {
    const names = (schema.propertyNames ?? {}) as Schema;
    for (let i = rng.int(0, 3); i > 0; i--) {
      const key = String(
        generateAt({ type: 'string', minLength: 1, ...names }, { ...walk, name: '' }),
      );
      out[key] = generateAt(extra === true ? {} : (extra as Schema), {
        ...walk,
        depth: walk.depth + 1,
        name: key,
      });
    }
  }
  return out;
}

function generateArray(schema: Schema, walk: Walk): unknown[] {
  const { rng } = walk.options;
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : [];
  const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : min + 3;
  const length = Math.max(prefix.length, rng.int(min, Math.min(max, min + 3)));
  const items = (schema.items ?? {}) as Schema;
  const child = { ...walk, depth: walk.depth + 1 };
  return Array.from({ length }, (_, i) => generateAt(prefix[i] ?? items, child));
}

function generateAt(input: Schema | boolean, walk: Walk): unknown {
  const { rng } = walk.options;
  if (input === true || input === false) return anyValue(rng);
  const schema = deref(input, walk.root, walk.options.resolveRef);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return rng.pick(schema.enum);
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) {
    // Past a few levels, prefer a non-recursive branch so recursive schemas end.
    const flat = branches.filter((b) => !('$ref' in b));
    const choice = walk.depth > 6 && flat.length > 0 ? rng.pick(flat) : rng.pick(branches);
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    return generateAt({ ...rest, ...choice }, walk);
  }
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    const merged: Schema = { ...rest };
    const properties: Record<string, unknown> = { ...(rest.properties as object) };
    const required: string[] = [...((rest.required as string[]) ?? [])];
    for (const part of allOf as Schema[]) {
      const resolved = deref(part, walk.root, walk.options.resolveRef);
      Object.assign(merged, resolved);
      Object.assign(properties, resolved.properties);
      required.push(...((resolved.required as string[]) ?? []));
    }
    Object.assign(merged, { properties, required });
    return generateAt(merged, walk);
  }
  const types = typesOf(schema);
  // A nullable field is mostly filled: null is the less interesting value.
  const nonNull = types.filter((t) => t !== 'null');
  const type =
    types.length === 0
      ? undefined
      : nonNull.length > 0 && rng.chance(0.85)
        ? rng.pick(nonNull)
        : rng.pick(types);
  switch (type) {
    case 'string':
      return generateString(schema, walk);
    case 'integer':
      return generateNumber(schema, true, rng);
    case 'number':
      return generateNumber(schema, false, rng);
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'array':
      return walk.depth > 12 ? [] : generateArray(schema, walk);
    case 'object':
      return walk.depth > 12 ? {} : generateObject(schema, walk);
    default:
      return anyValue(rng);
  }
}

/** A value valid against `schema` (best effort: patterns are sampled, not solved). */
export function generate(schema: Schema | boolean, options: GenerateOptions, name = ''): unknown {
  const root = typeof schema === 'object' ? schema : {};
  return generateAt(schema, { options, root, depth: 0, name });
}
