import {
  type Family,
  NAMES,
  RATE_LIMIT_HEADERS,
  REQUEST_ID_HEADERS,
  refTo,
  responseName,
  WRITE_LIMITED,
} from './components';

type Json = Record<string, unknown>;

export interface OperationLike {
  security?: Record<string, string[]>[];
  parameters?: Json[];
  requestBody?: Json;
  responses?: Record<string, Json>;
  /** Set by the `idempotent` macro (src/api/idempotency.ts). */
  'x-idempotent'?: boolean;
  /** Set by the `badBody` macro (src/api/plugins/body-rules.ts). */
  'x-bad-body'?: 'unprocessable' | 'malformed';
  /** Set by the `writes` macro (src/api/plugins/write-limit.ts) while the limits are on. */
  'x-write-limit'?: boolean;
  /** Set by a group's `errorScope` (src/api/error-family.ts): its error body family and mount. */
  'x-error-family'?: Family;
  'x-error-mount'?: string;
  /** Set by the `auth` / `optionalAuth` macros (src/api/plugins/auth.ts): 403 for an unverified account. */
  'x-verified-only'?: boolean;
  /** Set by the `limited` macro of the customer API's limiter (src/api/plugins/rate-limit.ts). */
  'x-customer-limit'?: boolean;
  [key: string]: unknown;
}

const SAFE = new Set(['get', 'head', 'options']);

const SUCCESS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  304: 'Not Modified: the If-None-Match tag is current; no body',
};

/** Header parameters under their usual spelling. */
const HEADER_NAMES: Record<string, string> = {
  'if-match': 'If-Match',
  'if-none-match': 'If-None-Match',
  'accept-language': 'Accept-Language',
};

/**
 * The statuses every operation of this kind can answer besides its own
 * (docs/errors.md): the front door's 400, 414 and 500 everywhere, Bun's 431;
 * 401 with a credential, 403 for employees-only, for a session cookie on
 * a state-changing request and for an account not verified yet; 413/415 with a body; 422 where a bad body is
 * unprocessable or an Idempotency-Key reused; 409 for a key still running;
 * 429 under the customer API's limiter (a counted write's 429, `WriteLimited`,
 * is added by `completeOperation`); 507 on every write.
 */
function sharedStatuses(method: string, operation: OperationLike): number[] {
  const statuses = [400, 414, 431, 500];
  const security = operation.security ?? [];
  const signedIn = security.some((requirement) => Object.keys(requirement).length > 0);
  if (signedIn) statuses.push(401);
  const employeesOnly = security.some((r) => Object.values(r).some((roles) => roles.length > 0));
  const refusable = employeesOnly || !SAFE.has(method) || operation['x-verified-only'];
  if (signedIn && refusable) statuses.push(403);
  if (operation.requestBody) statuses.push(413, 415);
  if (operation.requestBody && operation['x-bad-body'] === 'unprocessable') statuses.push(422);
  if (operation['x-idempotent']) statuses.push(409, 422);
  if (operation['x-customer-limit']) statuses.push(429);
  if (!SAFE.has(method)) statuses.push(507);
  return statuses;
}

/** Security requirements once each (macros merge theirs into the route's own). */
function dedupeSecurity(operation: OperationLike) {
  if (!operation.security) return;
  const seen = new Set<string>();
  operation.security = operation.security.filter((requirement) => {
    const key = JSON.stringify(requirement);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function completeParameters(operation: OperationLike) {
  const parameters = (operation.parameters ?? []).map((parameter) =>
    parameter.in === 'header'
      ? { ...parameter, name: HEADER_NAMES[String(parameter.name)] ?? parameter.name }
      : parameter,
  );
  if (operation['x-idempotent']) parameters.push(refTo('parameters', 'IdempotencyKey'));
  parameters.push(refTo('parameters', 'RequestId'));
  operation.parameters = parameters;
  delete operation['x-idempotent'];
  delete operation['x-bad-body'];
  delete operation['x-write-limit'];
  delete operation['x-error-family'];
  delete operation['x-error-mount'];
  delete operation['x-customer-limit'];
  delete operation['x-verified-only'];
}

/** A success answer: its description, the headers every answer carries, its media type. */
function completeSuccess(family: Family, status: string, response: Json, counted: boolean): Json {
  const headers = {
    ...(response.headers as Json | undefined),
    ...REQUEST_ID_HEADERS,
    ...(family === 'customer' || counted ? RATE_LIMIT_HEADERS : {}),
  };
  const generic = String(response.description ?? '').startsWith('Response for status');
  const description = generic ? (SUCCESS[status] ?? `Status ${status}`) : response.description;
  return { ...response, description, headers };
}

/**
 * Every answer an operation can give, each with the media type actually sent:
 * errors as references to the shared answers of its family (problem details,
 * or the customer API's JSON), successes with their headers.
 */
export function completeOperation(method: string, operation: OperationLike): void {
  const family: Family = operation['x-error-family'] ?? 'problem';
  dedupeSecurity(operation);
  const declared = operation.responses ?? {};
  const writeLimited = operation['x-write-limit'] === true;
  const responses: Record<string, Json> = {};
  for (const [status, response] of Object.entries(declared)) {
    const name = Number(status) >= 400 ? responseName(family, Number(status)) : undefined;
    responses[status] = name
      ? refTo('responses', name)
      : completeSuccess(family, status, response, writeLimited);
  }
  if (writeLimited) responses['429'] = refTo('responses', WRITE_LIMITED);
  for (const status of sharedStatuses(method, operation)) {
    const name = responseName(family, status);
    if (name && NAMES[status]) responses[String(status)] ??= refTo('responses', name);
  }
  operation.responses = Object.fromEntries(
    Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)),
  );
  completeParameters(operation);
}
