import { Elysia } from 'elysia';
import { fail } from '@/kernel/errors';
import { WHOLE_BODY } from '@/kernel/invalid-params';
import { MAX_BODY_BYTES } from '@/kernel/limits';
import { NUL_MESSAGE, nulPathOf } from '@/kernel/nul';
import { answersUnprocessable } from './body-rules';

/** Deeper JSON than this is refused: no legitimate body here nests further. */
export const MAX_JSON_DEPTH = 32;

const isJsonType = (contentType: string) => {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
};

/** Reads at most `limit` bytes, so a chunked body cannot grow past the limit in memory. */
async function readLimited(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) throw fail('request.body_too_large');
  if (!request.body) return '';
  // A declared length within the limit bounds the body by itself (the server
  // reads exactly that many bytes): read it in one go, far cheaper than
  // walking the stream chunk by chunk (docs/performance.md).
  if (declared >= 0 && !request.headers.has('transfer-encoding')) return request.text();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw fail('request.body_too_large');
    chunks.push(chunk);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
}

function depthOf(value: unknown, depth = 0): number {
  if (value === null || typeof value !== 'object') return depth;
  if (depth > MAX_JSON_DEPTH) return depth;
  let max = depth + 1;
  for (const child of Object.values(value)) max = Math.max(max, depthOf(child, depth + 1));
  return max;
}

const bodyRefused = (reason: string) =>
  fail('request.malformed', { invalidParams: [{ name: WHOLE_BODY, reason }] });

/** Parses a JSON text (already size-checked); throws 400 on bad syntax or depth. */
export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw bodyRefused('is not valid JSON');
  }
  if (depthOf(value) > MAX_JSON_DEPTH)
    throw bodyRefused(`nests deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
}

/**
 * A body that passed its schema but holds NUL in a string or a key: refused
 * as the route refuses any bad body (422 naming the field where it declares
 * `badBody: 'unprocessable'`, else 400), on either database.
 */
function refuseNul(body: unknown, request: Request): void {
  const path = nulPathOf(body);
  if (!path) return;
  if (path.length > 0 && answersUnprocessable(request)) {
    throw fail('request.invalid', { fields: [{ path, rule: 'noNul', message: NUL_MESSAGE }] });
  }
  const name = path.length === 0 ? WHOLE_BODY : path.map(String).join('.');
  throw fail('request.malformed', {
    invalidParams: [{ name, reason: 'must not contain the NUL character (U+0000)' }],
  });
}

/** The text of each parsed body, for what must compare bodies byte for byte (idempotency). */
const rawBodies = new WeakMap<Request, string>();
export const rawBodyOf = (request: Request): string => rawBodies.get(request) ?? '';

/** Runs the route's credential check, if it has one (`credentialChecksOf`). */
export type CredentialsFirst = (request: Request, route: string) => Promise<void> | undefined;

/** Whether the route `route` (Elysia's pattern) declares a body for `method` (`bodyRoutesOf`). */
export type ReadsBody = (method: string, route: string) => boolean;

interface RouteWithHooks {
  method: string;
  path: string;
  hooks: { body?: unknown; detail?: unknown };
}

/**
 * The routes that declare a body, by method and pattern: a body schema, or
 * a `requestBody` in their `detail` where the handler parses the body
 * itself. These are the operations whose document lists a request body
 * (and with it the answer to a bad one).
 */
export function bodyRoutesOf(routes: readonly RouteWithHooks[]): ReadsBody {
  const declaresBody = ({ hooks }: RouteWithHooks) =>
    hooks.body !== undefined ||
    (typeof hooks.detail === 'object' && hooks.detail !== null && 'requestBody' in hooks.detail);
  const withBody = new Set(routes.filter(declaresBody).map((r) => `${r.method} ${r.path}`));
  return (method, route) => withBody.has(`${method} ${route}`);
}

/**
 * Every request body is JSON: over 1 MiB → 413, another media type
 * → 415, bad syntax or excessive nesting → 400. An empty body parses to
 * `null` so optional bodies (DELETE) may be omitted (schemas use `.nullish()`).
 * On a route that needs credentials they are checked before a byte of the
 * body is read: an anonymous caller gets its 401 (or 403) whatever it sent.
 * After validation, a body holding NUL is refused (`refuseNul`). All of this
 * applies to the routes that declare a body; a route that declares none
 * never reads what was sent, so it answers as it would without it (its
 * document lists no 413, 415 or 422). A body over 2 MiB gets the HTTP
 * server's own 413 with an empty body (`maxRequestBodySize`), on any route.
 * The docs describe these bodies as JSON in the OpenAPI document (src/api/docs).
 */
export const jsonBody = (credentialsFirst: CredentialsFirst, readsBody: ReadsBody) =>
  new Elysia({ name: 'json-body' })
    .onParse({ as: 'global' }, async ({ request, route, contentType }) => {
      await credentialsFirst(request, route);
      // A route that declares no body never reads one: whatever was sent
      // (another media type, bad JSON, over 1 MiB) is answered as if absent.
      if (!readsBody(request.method, route)) return null;
      const text = await readLimited(request, MAX_BODY_BYTES);
      rawBodies.set(request, text);
      if (text.trim() === '') return null;
      if (!isJsonType(contentType ?? '')) throw fail('request.unsupported_media_type');
      return parseJson(text);
    })
    .onBeforeHandle({ as: 'global' }, ({ body, request, route }) => {
      if (readsBody(request.method, route)) refuseNul(body, request);
    });
