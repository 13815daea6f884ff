import type { Logger } from '@/logger';

/** Characters of a logged request body at most. */
export const BODY_LOG_MAX = 2048;

const SECRET_WORDS =
  'pass|pwd|token|secret|authorization|cookie|credential|api[-_]?key|private|signature|session';
/** A key whose value is never logged (password, accessToken, clientSecret, …). */
const SECRET_KEY = new RegExp(SECRET_WORDS, 'i');
/** The same keys in text that is not JSON (a malformed body, a form): `key: value`, `key=value`. */
const SECRET_PAIR = new RegExp(
  `("?)([\\w-]*(?:${SECRET_WORDS})[\\w-]*)\\1(\\s*[:=]\\s*)("(?:[^"\\\\]|\\\\.)*"?|[^\\s,&;}]*)`,
  'gi',
);
export const REDACTED = '[redacted]';

function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) ? REDACTED : redact(item);
  }
  return out;
}

const truncated = (text: string) =>
  text.length > BODY_LOG_MAX ? `${text.slice(0, BODY_LOG_MAX)}… (${text.length} characters)` : text;

/**
 * What the log may show of a request body: JSON with the value of every
 * secret-looking key replaced (as an object when short enough, else as
 * truncated text), any other text with `key: value` / `key=value` pairs of
 * such keys replaced, then truncated.
 */
export function loggableBody(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return truncated(text.replace(SECRET_PAIR, `$1$2$1$3"${REDACTED}"`));
  }
  const redacted = redact(parsed);
  const json = JSON.stringify(redacted);
  return json.length > BODY_LOG_MAX ? truncated(json) : redacted;
}

/**
 * A copy of the request's body to log if the answer is a 4xx or 5xx: taken
 * only with debug logging on (the server reads the original), else nothing
 * is done at all.
 */
export function bodyCopyOf(logger: Logger, request: Request): Request | undefined {
  if (!logger.debugOn || request.method === 'GET' || request.method === 'HEAD') return undefined;
  return request.body === null ? undefined : request.clone();
}

/** The debug line after the request line of a failed request: its body, redacted and truncated. */
export function logRequestBody(
  logger: Logger,
  requestId: string,
  status: number,
  copy: Request | undefined,
): void {
  if (copy === undefined || status < 400) return;
  copy
    .text()
    .then((text) => {
      if (text !== '') logger.debug('request body', { requestId, body: loggableBody(text) });
    })
    .catch(() => {
      // A body the client did not finish sending: nothing to show.
    });
}
