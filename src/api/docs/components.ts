import { z } from 'zod';
import { Message, RateLimited, ValidationFailed } from '../customer/schemas';
import { BadRequestProblem, PROBLEMS, Problem, ValidationProblem } from '../problem';

type Json = Record<string, unknown>;

/** A `#/components/<kind>/<name>` reference. */
export const refTo = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

const schemaOf = (schema: z.ZodType): Json => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'output' }) as Json;
  return rest;
};

/** The error bodies, once each (docs/errors.md). */
export const SCHEMAS: Record<string, Json> = {
  Problem: schemaOf(Problem),
  BadRequestProblem: schemaOf(BadRequestProblem),
  ValidationProblem: schemaOf(ValidationProblem),
  Message: schemaOf(Message),
  ValidationFailed: schemaOf(ValidationFailed),
  RateLimited: schemaOf(RateLimited),
};

const header = (description: string, schema: Json = { type: 'string' }) => ({
  description,
  schema,
});

/** Response headers clients rely on; referenced from every response that carries them. */
export const HEADERS: Record<string, Json> = {
  XRequestId: header(
    'The id of this request in the service log: the X-Request-Id sent when it is 1..128 of letters, digits, `_ . : -`, else a new UUID.',
  ),
  RetryAfter: header('Whole seconds to wait before trying again.', { type: 'integer', minimum: 1 }),
  Allow: header('The methods this path answers.'),
  Location: header('The path of the new resource.'),
  ETag: header('Strong validator of this representation: send it as If-None-Match or If-Match.'),
  RateLimitPolicy: header(
    'Every window counted for the caller, `limit;w=seconds`, comma-separated (the window closest to refusing first is not implied).',
  ),
  RateLimit: header('The window closest to refusing: `limit=N, remaining=N, reset=seconds`.'),
  XRateLimitLimit: header('Requests allowed in the window closest to refusing.', {
    type: 'integer',
  }),
  XRateLimitRemaining: header('Requests left in that window.', { type: 'integer' }),
  XRateLimitReset: header('When that window resets, in Unix seconds.', { type: 'integer' }),
  SetCookie: header(
    'The session cookie: `session=…; Path=/; HttpOnly; SameSite=Lax`; when the service is configured for HTTPS (TLS, or an https PUBLIC_ORIGIN) it is `__Host-session=…` and Secure.',
  ),
  IdempotentReplayed: header(
    '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
  ),
};

/** Headers every customer API (/api/v1) answer carries while the limiter is on. */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': refTo('headers', 'RateLimitPolicy'),
  RateLimit: refTo('headers', 'RateLimit'),
  'X-RateLimit-Limit': refTo('headers', 'XRateLimitLimit'),
  'X-RateLimit-Remaining': refTo('headers', 'XRateLimitRemaining'),
  'X-RateLimit-Reset': refTo('headers', 'XRateLimitReset'),
};

export const REQUEST_ID_HEADERS = { 'X-Request-Id': refTo('headers', 'XRequestId') };

/** Request headers documented on every operation (X-Request-Id) or the idempotent POSTs. */
export const PARAMETERS: Record<string, Json> = {
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description:
      'Your id for this request (1..128 of letters, digits, `_ . : -`): echoed and logged.',
    schema: { type: 'string', maxLength: 128, pattern: '^[\\w.:-]{1,128}$' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Safe retries for a signed-in caller: the first answer to a key is kept 24 hours and replayed (Idempotent-Replayed: true) for a retry with the same request; another request with the key answers 422, a retry while the first runs 409.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]{1,255}$' },
  },
};

/** A bearer token (POST /auth/sign-in, or minted) or the browser's session cookie. */
const SECURITY_SCHEMES: Record<string, Json> = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'HS256 JWT with sub, aud (customer or employee), iat and exp.',
  },
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: 'session',
    description:
      'The session cookie set by sign-in; a state-changing request with it must carry an Origin of PUBLIC_ORIGIN.',
  },
};

/** Component names of the shared answers, per status. */
export const NAMES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  412: 'PreconditionFailed',
  413: 'PayloadTooLarge',
  414: 'UriTooLong',
  415: 'UnsupportedMediaType',
  422: 'UnprocessableEntity',
  429: 'TooManyRequests',
  431: 'RequestHeaderFieldsTooLarge',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
  507: 'InsufficientStorage',
};

/** The two error bodies (docs/errors.md): problem details, or the customer API's Laravel shape. */
export type Family = 'problem' | 'customer';

/** The component name of a status's shared answer in a family. */
export const responseName = (family: Family, status: number): string | undefined => {
  const name = NAMES[status];
  return name && family === 'customer' && status !== 431 ? `Api${name}` : name;
};

const WHY: Record<number, string> = {
  400: 'Malformed request: bad JSON, a wrong query parameter, a body that is not an object, a body failing validation where no 422 is listed (a text holding the NUL character U+0000 included), or a URL the service cannot route. `invalidParams` names each refused parameter and why, when there is one to name.',
  401: 'No valid credential, or one that is present but invalid.',
  403: 'The caller may not do this: an employee-only route, a session cookie on a state-changing request from a foreign Origin, a passkey route over plain HTTP off loopback, or an account whose address is not verified yet (`account.unverified`, SIGN_UP=verify: only its own /auth routes answer it).',
  404: 'No such resource (or one the caller may not see).',
  409: 'The request conflicts with the current state of the resource.',
  410: 'The events after this cursor are no longer kept (older than EVENTS_RETENTION_DAYS): read again without `after`.',
  412: 'If-Match names an ETag the resource no longer has.',
  413: 'The body is larger than 1 MiB.',
  414: 'The URL is longer than 8 KiB.',
  415: 'The body is not JSON (Content-Type: application/json).',
  422: 'The body breaks a field rule (a text holding the NUL character U+0000 is refused as `noNul`); every failed field is named.',
  429: 'Too many requests; retry after Retry-After seconds.',
  500: 'An unexpected failure; nothing internal is shown (it is logged with the request id).',
  503: 'The service is stopping, its database does not answer, or it is at capacity for password hashing or passkey ceremonies; retry after Retry-After seconds.',
  507: "The database's storage is full or read-only: the change was not stored (nothing of it is written); retry after Retry-After seconds, once the operator has freed space.",
};

const PROBLEM_SCHEMAS: Record<number, string> = {
  400: 'BadRequestProblem',
  422: 'ValidationProblem',
};
const problemSchema = (status: number) => refTo('schemas', PROBLEM_SCHEMAS[status] ?? 'Problem');
const customerSchema = (status: number) =>
  refTo(
    'schemas',
    status === 422 ? 'ValidationFailed' : status === 429 ? 'RateLimited' : 'Message',
  );

function sharedResponse(family: Family, status: number): Json {
  if (status === 431) {
    return {
      description:
        'Request Header Fields Too Large: the request line and headers together pass 16 KiB. Bun answers this before the service sees the request: no body, the connection is closed.',
    };
  }
  const title = PROBLEMS[status]?.title ?? String(status);
  const headers: Json = { ...REQUEST_ID_HEADERS };
  if (status === 429 || status === 507) headers['Retry-After'] = refTo('headers', 'RetryAfter');
  if (family === 'problem') {
    return {
      description: `${title}: ${WHY[status]}`,
      headers,
      content: { 'application/problem+json': { schema: problemSchema(status) } },
    };
  }
  const content: Json = { 'application/json': { schema: customerSchema(status) } };
  // The front door refuses an unroutable URL before it knows which API was meant.
  if (status === 400) content['application/problem+json'] = { schema: problemSchema(400) };
  return {
    description: `${title}: ${WHY[status]}`,
    headers: { ...headers, ...RATE_LIMIT_HEADERS },
    content,
  };
}

/** The 429 of a route's write budget (docs/request-pipeline.md), with the window's headers. */
export const WRITE_LIMITED = 'WriteLimited';

const writeLimited: Json = {
  description:
    "Too Many Requests: the caller's write budget of this minute is used up (a batch that does not fit is refused whole and stores nothing); retry after Retry-After seconds.",
  headers: {
    ...REQUEST_ID_HEADERS,
    'Retry-After': refTo('headers', 'RetryAfter'),
    ...RATE_LIMIT_HEADERS,
  },
  content: { 'application/problem+json': { schema: refTo('schemas', 'Problem') } },
};

/** `components` of the document: error bodies, shared answers, headers and parameters. */
export function components(): Json {
  const responses: Json = {};
  for (const family of ['problem', 'customer'] as const) {
    for (const status of Object.keys(NAMES).map(Number)) {
      responses[responseName(family, status)!] = sharedResponse(family, status);
    }
  }
  responses[WRITE_LIMITED] = writeLimited;
  return {
    schemas: SCHEMAS,
    responses,
    headers: HEADERS,
    parameters: PARAMETERS,
    securitySchemes: SECURITY_SCHEMES,
  };
}
