import { securityHeaders } from '@/api/request/headers';
import type { Utf8 } from '@/kernel/utf8';

/**
 * What the core of a hot read answers: status, body text and the headers of
 * this answer. The Elysia route turns it into its `Response` and the fast
 * lane into its own, so both lanes send the same bytes. `headers` is either
 * a plain record or a `Headers` template made by `answerHeaders` (with the
 * security headers already in: for answers served over and over, copying a
 * template into the response is cheaper than building it from an object).
 */
export interface Answer {
  status: number;
  body: string | Utf8 | null;
  headers: Readonly<Record<string, string>> | Headers;
  /** An ETag set on top of `headers`: a template shared by answers that differ only in it. */
  etag?: string;
}

/** A response headers template: `headers` plus the security headers. */
export const answerHeaders = (headers: Readonly<Record<string, string>>): Headers =>
  new Headers({ ...headers, ...securityHeaders });

/**
 * The answer as a `Response`, the security headers included: what an Elysia
 * handler returns and what the fast lane sends, so both lanes send the same
 * bytes from one function.
 */
export function responseOf({ status, body, headers, etag }: Answer): Response {
  return responseWith(body, { status, headers, etag });
}

/**
 * Bytes above which a body handed to Bun after the request's own turn goes
 * as one direct-stream write (`deferredResponseOf`).
 */
const DEFERRED_STREAM_FROM = 8 * 1024;

/** Bun's direct `ReadableStream`, which the DOM typings the project loads do not show. */
const DirectStream = ReadableStream as unknown as new (
  source: Bun.DirectUnderlyingSource,
) => ReadableStream<Uint8Array>;

/**
 * `responseOf` for an answer that comes after an await (every answer on
 * PostgreSQL). Bun writes a body handed over after the request's turn in
 * pieces of about 2 KB, a system call each: a 30 KB list page took 15 and
 * 81–96 µs of CPU, against one and 20–22 µs for the same bytes answered at
 * once, and capped the requests a second (docs/scaling-out.md). Past 8 KB
 * the body is written to a direct stream in one call instead (25–28 µs),
 * sent chunked rather than with a Content-Length: the same bytes.
 */
export function deferredResponseOf(answer: Answer): Response {
  const { body } = answer;
  if (!(body instanceof Uint8Array) || body.byteLength <= DEFERRED_STREAM_FROM) {
    return responseOf(answer);
  }
  const source: Bun.DirectUnderlyingSource = {
    type: 'direct',
    pull(controller) {
      controller.write(body);
      return controller.close();
    },
  };
  return responseWith(new DirectStream(source), answer);
}

function responseWith(
  body: BodyInit | null,
  { status, headers, etag }: Omit<Answer, 'body'>,
): Response {
  const response = new Response(body, {
    status,
    headers: headers instanceof Headers ? headers : { ...headers, ...securityHeaders },
  });
  if (etag !== undefined) response.headers.set('etag', etag);
  return response;
}

/** The answer with `extra` headers on top (a plain-record answer only). */
export function withHeaders(
  answer: Answer & { headers: Readonly<Record<string, string>> },
  extra: Readonly<Record<string, string>>,
): Answer {
  return { ...answer, headers: { ...answer.headers, ...extra } };
}
