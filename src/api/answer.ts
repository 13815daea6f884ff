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
