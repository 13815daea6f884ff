/**
 * /docs try-it with its defaults: for every GET operation of /docs/json, the
 * request Swagger UI (5.x, node_modules/swagger-ui-dist) sends when "Try it
 * out" then "Execute" is pressed without typing anything, sent with a token
 * of the caller the operation needs (as after "Authorize"). Each answers
 * 2xx: never a 400 to the values Swagger UI generates.
 *
 * Swagger UI's rules, as its parameter row and its client apply them: a
 * parameter's initial value is the first of its examples, its `example`, its
 * schema's `example`, its schema's `default`, its own `default`; failing
 * those, an object (or array of objects) gets a value generated from the
 * schema (`additionalProp1`…). Objects are written per `style` (deepObject:
 * `name[key]=value`, a nested value as JSON), arrays as repeated keys,
 * anything else as `name=value`; empty values are left out. A required
 * parameter without a value stops the request in the page: nothing is sent.
 */
import { expect, test } from 'bun:test';
import { sqliteUnderTest } from '../accounts/stores';

const METRICS_TOKEN = 'try-it-metrics-token-0123456789abcdef';
const ctx = await sqliteUnderTest.app({ env: { METRICS_TOKEN } });

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  style?: string;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
  default?: unknown;
  schema?: Json;
}
interface Operation {
  operationId: string;
  parameters?: (Parameter | { $ref: string })[];
  security?: Record<string, string[]>[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { parameters?: Record<string, Parameter> };
}

/** The value Swagger UI generates from a schema: its sample values. */
function sampleOf(schema: Json | undefined): unknown {
  if (!schema) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const sample: Json = {};
      for (const [key, property] of Object.entries((schema.properties ?? {}) as Json))
        sample[key] = sampleOf(property as Json);
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
        for (const n of [1, 2, 3])
          sample[`additionalProp${n}`] = sampleOf(schema.additionalProperties as Json);
      return sample;
    }
    case 'array':
      return [sampleOf(schema.items as Json)];
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return true;
    default:
      return 'string';
  }
}

/** What the try-it form holds before anything is typed, as Swagger UI fills it. */
function initialValue(parameter: Parameter): unknown {
  const schema = parameter.schema ?? {};
  const first = Object.values(parameter.examples ?? {})[0]?.value;
  const given = [first, parameter.example, schema.example, schema.default, parameter.default].find(
    (value) => value !== undefined,
  );
  if (given !== undefined) return given;
  const items = schema.items as Json | undefined;
  const generated =
    schema.type === 'object' || (schema.type === 'array' && items?.type === 'object');
  return generated && !parameter.examples ? sampleOf(schema) : undefined;
}

const written = (value: unknown) =>
  typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);

/** The query pairs a parameter's value is written as. */
function queryPairs(parameter: Parameter, value: unknown): [string, string][] {
  if (Array.isArray(value)) return value.map((item) => [parameter.name, written(item)]);
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (parameter.style === 'deepObject')
      return entries.map(([key, item]) => [`${parameter.name}[${key}]`, written(item)]);
    return entries.map(([key, item]) => [key, written(item)]);
  }
  return [[parameter.name, written(value)]];
}

/** The request Swagger UI sends, or the required parameters it asks for instead. */
function tryItRequest(document: Document, path: string, operation: Operation) {
  const parameters = (operation.parameters ?? []).map((parameter) =>
    '$ref' in parameter
      ? document.components.parameters![parameter.$ref.split('/').pop()!]!
      : parameter,
  );
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  const missing: string[] = [];
  let target = path;
  for (const parameter of parameters) {
    const value = initialValue(parameter);
    const empty = value === undefined || value === '' || (Array.isArray(value) && !value.length);
    if (empty) {
      if (parameter.required) missing.push(parameter.name);
      continue;
    }
    if (parameter.in === 'path')
      target = target.replace(`{${parameter.name}}`, encodeURIComponent(written(value)));
    if (parameter.in === 'header') headers[parameter.name] = written(value);
    if (parameter.in === 'query')
      for (const [key, item] of queryPairs(parameter, value)) query.append(key, item);
  }
  const search = query.size ? `?${query}` : '';
  return { url: `${target}${search}`, headers, missing };
}

test('every GET try-it with its defaults answers without a 400', async () => {
  const document = (await ctx.request<Document>('GET', '/docs/json')).body;
  // Signed-in accounts: the /auth reads answer for an account that exists.
  const customer = (await ctx.newUser()).token;
  const employee = (await ctx.signIn((await ctx.createAccount(undefined, 'employee')).email)).token;
  const answers: [string, number][] = [];
  const askedFor: string[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const operation = item.get;
    if (!operation) continue;
    const { url, headers, missing } = tryItRequest(document, path, operation);
    if (missing.length) {
      askedFor.push(`${path}: ${missing.join(', ')}`);
      continue;
    }
    const employeeOnly = (operation.security ?? []).some((requirement) =>
      Object.values(requirement).some((scopes) => scopes.includes('employee')),
    );
    const token =
      operation.operationId === 'getMetrics' ? METRICS_TOKEN : employeeOnly ? employee : customer;
    const res = await ctx.request('GET', url, { token, headers });
    answers.push([url, res.status]);
  }
  expect(answers.filter(([, status]) => status === 400)).toEqual([]);
  expect(answers.filter(([, status]) => status < 200 || status > 299)).toEqual([]);
  // The list operations are among those sent with generated values.
  expect(answers.map(([url]) => url)).toContain('/listings/properties');
  expect(answers.length).toBeGreaterThan(20);
  // Only an operation with an id in its path waits for one to be typed.
  for (const asked of askedFor) expect(asked).toMatch(/\{\w+\}.*: \w+/);
});

test("the generated-values rule is Swagger UI's: without its example, features goes out as additionalProp1", async () => {
  const document = (await ctx.request<Document>('GET', '/docs/json')).body;
  const operation = document.paths['/listings/properties']!.get!;
  const features = operation.parameters!.find(
    (parameter) => 'name' in parameter && parameter.name === 'features',
  ) as Parameter;
  expect(features.example).toEqual({});
  const { example: _, ...withoutExample } = features;
  const bare = { ...operation, parameters: [withoutExample] };
  const { url } = tryItRequest(document, '/listings/properties', bare);
  expect(decodeURIComponent(url)).toStartWith('/listings/properties?features[additionalProp1]={');
  const res = await ctx.request('GET', url, { token: await ctx.tokenFor('try-it') });
  expect(res.status).toBe(400);
});
