import { z } from 'zod';
import { components } from './components';
import { EXAMPLES } from './examples';
import { completeOperation, type OperationLike } from './operations';
import { describeQueryEncodings } from './parameters';

type Json = Record<string, unknown>;
export interface RouteLike {
  method: string;
  path: string;
  hooks?: { body?: unknown };
}

const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

function jsonSchemaOf(schema: unknown): Json | undefined {
  if (!(schema instanceof z.ZodType)) return undefined;
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  } catch {
    return undefined;
  }
}

/** Drops the `$schema` z.toJSONSchema puts on every schema: the document's dialect is one. */
function withoutSchemaKeys(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  if (!Array.isArray(node)) delete (node as Json).$schema;
  for (const child of Object.values(node)) withoutSchemaKeys(child);
}

/** `fooBar-baz` → `fooBarBaz`: a route without its own operationId still gets a method name. */
const identifier = (id: string) => id.replace(/[^A-Za-z0-9]+(.)?/g, (_, c = '') => c.toUpperCase());

/**
 * Request bodies: with our own JSON body parser @elysiajs/openapi leaves
 * `content` empty; every body here is `application/json`, described from the
 * route's zod schema, with an example (src/api/docs/examples.ts).
 */
function completeRequestBodies(
  paths: Record<string, Record<string, OperationLike>>,
  routes: readonly RouteLike[],
) {
  for (const route of routes) {
    const operation = paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()];
    const requestBody = operation?.requestBody as { content?: Json } | undefined;
    if (!requestBody) continue;
    if (Object.keys(requestBody.content ?? {}).length === 0) {
      const schema = jsonSchemaOf(route.hooks?.body);
      if (schema) requestBody.content = { 'application/json': { schema } };
    }
    const media = requestBody.content?.['application/json'] as Json | undefined;
    const example = EXAMPLES[String(operation?.operationId)];
    if (media && example !== undefined) media.example = example;
  }
}

/**
 * A bodiless response (z.null()) comes out of @elysiajs/openapi as
 * `content: {type: "null"}`, which is not a media-type map: such responses
 * have no content.
 */
function dropNullContent(operation: OperationLike) {
  for (const response of Object.values(operation.responses ?? {})) {
    const content = response.content as Json | undefined;
    if (content && typeof content.type === 'string') delete response.content;
  }
}

/** Leaves only the shared answers, headers and parameters some operation refers to. */
function pruneComponents(document: Json) {
  const text = JSON.stringify(document.paths);
  const parts = document.components as Record<string, Json>;
  for (const kind of ['responses', 'parameters'] as const) {
    for (const name of Object.keys(parts[kind] ?? {})) {
      if (!text.includes(`"#/components/${kind}/${name}"`)) delete parts[kind]![name];
    }
  }
  const rest = JSON.stringify({ paths: document.paths, responses: parts.responses });
  for (const name of Object.keys(parts.headers ?? {})) {
    if (!rest.includes(`"#/components/headers/${name}"`)) delete parts.headers![name];
  }
}

const mended = new WeakSet<object>();

/**
 * Mends the document @elysiajs/openapi generates, in place (the plugin caches
 * it, so this runs once per document), into one that tells the whole truth:
 * every status each operation can answer with the media type actually sent
 * (shared answers as `components/responses`), the headers clients rely on,
 * query parameters typed as clients write them, an example per request body
 * and an operationId that reads as a method name. docs/api-reference.md
 * describes the rules.
 */
export function fixOpenApiDocument(document: unknown, routes: readonly RouteLike[]): void {
  const doc = document as Json & { paths?: Record<string, Record<string, OperationLike>> };
  const paths = doc?.paths;
  // The plugin serves the same cached object every time: mend it once.
  if (!paths || mended.has(doc)) return;
  mended.add(doc);
  withoutSchemaKeys(paths);
  doc.servers = [{ url: '/', description: 'This service (the origin /docs/json was read from)' }];
  const shared = components();
  doc.components = {
    ...(doc.components as Json),
    ...shared,
    schemas: { ...((doc.components as Json)?.schemas as Json), ...(shared.schemas as Json) },
  };
  completeRequestBodies(paths, routes);
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      dropNullContent(operation);
      if (typeof operation.operationId === 'string')
        operation.operationId = identifier(operation.operationId);
      describeQueryEncodings(operation);
      // No requirement is a statement too: anyone may call it.
      operation.security ??= [];
      completeOperation(method, operation);
    }
  }
  pruneComponents(doc);
}
