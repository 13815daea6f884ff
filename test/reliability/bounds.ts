import type { z } from 'zod';

/** Zod 4's internal definition, as far as walking a schema needs it. */
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  left?: z.ZodType;
  right?: z.ZodType;
  checks?: unknown[];
  getter?: () => z.ZodType;
}

interface CheckDef {
  check: string;
  maximum?: number;
  length?: number;
  pattern?: RegExp;
}

const internals = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod;
const checksOf = (def: Def): CheckDef[] =>
  (def.checks ?? []).map((check) => (check as { _zod: { def: CheckDef } })._zod.def);
/** A `.max(n)` or `.length(n)` among the checks (strings and arrays alike). */
const hasMaximum = (def: Def) =>
  checksOf(def).some((c) => c.check === 'max_length' || c.check === 'length_equals');

/** An anchored pattern without `*`, `+` or `{n,}` admits only strings of bounded length. */
const boundedPattern = (pattern: RegExp) =>
  pattern.source.startsWith('^') &&
  pattern.source.endsWith('$') &&
  !/(?<!\\)[*+]|\{\d+,\}/.test(pattern.source);

/**
 * Every place in `schema` where input of unbounded size is accepted: a string
 * without a maximum length (or an enum, literal or bounded pattern), an array
 * without a maximum item count, a record or open object whose free-form part
 * carries no size check. Returns dotted paths (`[]` for array items, `*` for
 * record values).
 */
export function unboundedPaths(schema: z.ZodType, path = '$'): string[] {
  const { def } = internals(schema);
  switch (def.type) {
    case 'string': {
      if (hasMaximum(def)) return [];
      const patterns = checksOf(def).flatMap((c) => (c.pattern ? [c.pattern] : []));
      if (patterns.some(boundedPattern)) return [];
      return [path];
    }
    case 'array': {
      const own = hasMaximum(def) ? [] : [`${path} (items)`];
      return [...own, ...unboundedPaths(def.element!, `${path}[]`)];
    }
    case 'object': {
      const fields = Object.entries(def.shape ?? {}).flatMap(([key, field]) =>
        unboundedPaths(field, `${path}.${key}`),
      );
      const extra = def.catchall ? internals(def.catchall).def.type : 'never';
      // Open objects (`looseObject`) pass unknown keys through: fine when a check bounds
      // the whole object, or when the service ignores them (listed by the caller).
      const open = extra !== 'never' && !def.checks?.length ? [`${path}.* (open)`] : [];
      return [...fields, ...open];
    }
    case 'record':
      return def.checks?.length ? [] : [`${path}.* (record)`];
    case 'union':
      return def.options!.flatMap((option) => unboundedPaths(option, path));
    case 'intersection':
      return [...unboundedPaths(def.left!, path), ...unboundedPaths(def.right!, path)];
    case 'pipe': {
      // Input must pass both sides: either one bounding it is enough.
      const first = unboundedPaths(def.in!, path);
      return first.length === 0 ? [] : unboundedPaths(def.out!, path);
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return unboundedPaths(def.innerType!, path);
    case 'lazy':
      return unboundedPaths(def.getter!(), path);
    case 'unknown':
    case 'any':
      return [`${path} (any JSON)`];
    default:
      // number, int, boolean, enum, literal, null, transform, never, ...
      return [];
  }
}
