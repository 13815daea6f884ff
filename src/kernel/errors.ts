/**
 * Typed domain errors. Services throw these; the error-handler plugin maps
 * each to a problem+json body or, under /api/v1, to a Laravel-style body
 * (docs/errors.md).
 */
export type RuleMessages = Record<string, string>;
export interface ValidationMessages {
  [field: string]: RuleMessages | ValidationMessages;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    /** Overrides the fixed detail of the status (e.g. a static page naming its slug). */
    readonly detail?: string,
  ) {
    super(detail ?? `HTTP ${status}`);
    this.name = new.target.name;
  }
}

export class BadRequest extends AppError {
  constructor(detail?: string) {
    super(400, detail);
  }
}

export class Unauthorized extends AppError {
  constructor() {
    super(401);
  }
}

export class Forbidden extends AppError {
  constructor() {
    super(403);
  }
}

export class NotFound extends AppError {
  constructor(detail?: string) {
    super(404, detail);
  }
}

export class MethodNotAllowed extends AppError {
  constructor(readonly allow: string[]) {
    super(405);
  }
}

export class Conflict extends AppError {
  constructor(detail?: string) {
    super(409, detail);
  }
}

export class PreconditionFailed extends AppError {
  constructor() {
    super(412);
  }
}

export class PayloadTooLarge extends AppError {
  constructor() {
    super(413);
  }
}

export class UnsupportedMediaType extends AppError {
  constructor() {
    super(415);
  }
}

/** 422 with `validationMessages` (listings) or `errors` (customer API). */
export class Unprocessable extends AppError {
  constructor(
    readonly validationMessages: ValidationMessages,
    /** Laravel-style `errors` for /api/v1: dotted field → sentences. */
    readonly errors?: Record<string, string[]>,
  ) {
    super(422);
  }
}

export class TooManyRequests extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    /** A body that replaces the default one (the customer API's rate-limit body). */
    readonly body?: Record<string, unknown>,
  ) {
    super(429);
  }
}

export class ServiceUnavailable extends AppError {
  constructor() {
    super(503);
  }
}

/** A field-level failure: `fieldError(['location', 'cityId'], 'notInArray', '...')`. */
export function fieldError(
  path: readonly (string | number)[],
  rule: string,
  message: string,
): Unprocessable {
  const messages: ValidationMessages = {};
  let node: ValidationMessages = messages;
  for (const [index, key] of path.entries()) {
    if (index === path.length - 1) {
      node[String(key)] = { [rule]: message };
    } else {
      const next: ValidationMessages = {};
      node[String(key)] = next;
      node = next;
    }
  }
  return new Unprocessable(messages, { [path.join('.')]: [message] });
}
