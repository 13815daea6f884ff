import { z } from 'zod';

type Json = Record<string, unknown>;
interface RouteLike {
  method: string;
  path: string;
  hooks?: { body?: unknown };
}

const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

function jsonSchemaOf(schema: unknown): Json | undefined {
  if (!(schema instanceof z.ZodType)) return undefined;
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  } catch {
    return undefined;
  }
}

/**
 * Two gaps of @elysiajs/openapi, mended in place on the generated document
 * (the plugin caches it, so this runs once per document):
 * - a bodiless response (z.null()) is rendered as `content: {type: "null"}`,
 *   which is not a media-type map: such responses have no content;
 * - with our own JSON body parser the request bodies come out with an empty
 *   `content`: every body here is `application/json`, described from the
 *   route's zod schema.
 */
export function fixOpenApiDocument(document: unknown, routes: readonly RouteLike[]): void {
  const paths = (document as { paths?: Record<string, Record<string, Json>> })?.paths;
  if (!paths) return;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const responses = (operation as { responses?: Record<string, Json> }).responses;
      for (const response of Object.values(responses ?? {})) {
        const content = response.content as Json | undefined;
        if (content && typeof content.type === 'string') delete response.content;
      }
    }
  }
  for (const route of routes) {
    const operation = paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()];
    const requestBody = operation?.requestBody as { content?: Json } | undefined;
    if (!requestBody || Object.keys(requestBody.content ?? {}).length > 0) continue;
    const schema = jsonSchemaOf(route.hooks?.body);
    if (schema) requestBody.content = { 'application/json': { schema } };
  }
}
