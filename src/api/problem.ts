import { z } from 'zod';
import type { InvalidParam } from '@/kernel/errors';
import type { ValidationMessages } from './field-failures';

/** The problem `type`: RFC 2616 §10, the definitions of the HTTP status codes. */
export const PROBLEM_TYPE = 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html';

/** Fixed titles (RFC 2616 reason phrases) and details of each status (docs/errors.md). */
export const PROBLEMS: Record<number, { title: string; detail: string }> = {
  400: {
    title: 'Bad Request',
    detail: 'The request could not be understood by the server due to malformed syntax',
  },
  401: { title: 'Unauthorized', detail: 'Unauthorized user' },
  403: { title: 'Forbidden', detail: 'You are not allowed to perform this operation' },
  404: { title: 'Not Found', detail: 'The resource was not found' },
  405: {
    title: 'Method Not Allowed',
    detail: 'The request method is not allowed for this resource',
  },
  409: {
    title: 'Conflict',
    detail:
      'The request could not be completed due to a conflict with the current state of the resource',
  },
  410: {
    title: 'Gone',
    detail:
      'The events after this cursor are no longer kept: read the feed again without `after` and resynchronise from the resources themselves',
  },
  412: {
    title: 'Precondition Failed',
    detail: 'The resource has changed since it was last read',
  },
  413: {
    title: 'Request Entity Too Large',
    detail: 'The request body is larger than the limit of 1 MiB',
  },
  414: { title: 'Request-URI Too Long', detail: 'The request URI is longer than 8 KiB' },
  415: {
    title: 'Unsupported Media Type',
    detail: 'The request body must be JSON (Content-Type: application/json)',
  },
  422: {
    title: 'Unprocessable Entity',
    detail: 'The request was well formed but was unable to be followed due to semantic errors',
  },
  429: { title: 'Too Many Requests', detail: 'Too many requests; retry later' },
  500: { title: 'Internal Server Error', detail: 'Internal Server Error' },
  503: { title: 'Service Unavailable', detail: 'The service is temporarily unavailable' },
  507: {
    title: 'Insufficient Storage',
    detail:
      'Storage is full: the change was not stored and nothing of it was written; retry after Retry-After seconds',
  },
};

/** The problem body of every failure outside the customer API (docs/errors.md). */
export const Problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  detail: z.string(),
});

/** A 422's problem body: the same, with the failed rules. */
export const ValidationProblem = Problem.extend({
  validationMessages: z
    .record(z.string(), z.unknown())
    .describe('One key per failed field (nested for nested objects): rule name → message'),
});

/**
 * A 400's problem body: the same, with the parameters it refused when the
 * service can name them (an RFC 9457 extension member, camelCase like
 * `validationMessages`).
 */
export const BadRequestProblem = Problem.extend({
  invalidParams: z
    .array(
      z.object({
        name: z
          .string()
          .describe(
            'The parameter as written: `itemsPerPage`, `features[0][name]`, or a body field dotted (`location.latitude`)',
          ),
        reason: z
          .string()
          .describe('What it must be, with the value received when it came in the URL'),
      }),
    )
    .optional()
    .describe('Each refused parameter and why, in the order its schema declares them (at most 20)'),
});

/** A problem body as rendered: `validationMessages` only on a 422, `invalidParams` on a 400. */
export type Problem = z.infer<typeof Problem> & {
  validationMessages?: ValidationMessages;
  invalidParams?: readonly InvalidParam[];
};

export function problemOf(
  status: number,
  detail?: string,
  validationMessages?: ValidationMessages,
  invalidParams?: readonly InvalidParam[],
): Problem {
  const fixed = PROBLEMS[status] ?? PROBLEMS[500]!;
  return {
    type: PROBLEM_TYPE,
    title: fixed.title,
    status,
    detail: detail ?? fixed.detail,
    ...(validationMessages ? { validationMessages } : {}),
    ...(invalidParams?.length ? { invalidParams } : {}),
  };
}

/** The customer API's Laravel-style `{message}` per status (docs/errors.md). */
export const LARAVEL_MESSAGES: Record<number, string> = {
  400: 'The request could not be understood by the server due to malformed syntax.',
  401: 'Unauthenticated.',
  403: 'This action is unauthorized.',
  404: 'Not Found.',
  405: 'The method is not supported for this route.',
  409: 'Conflict.',
  412: 'Precondition Failed.',
  413: 'The request body is larger than the limit of 1 MiB.',
  414: 'The request URI is too long.',
  415: 'The request body must be JSON.',
  422: 'The given data was invalid.',
  429: 'Too Many Attempts.',
  500: 'Server Error',
  503: 'Service Unavailable',
  507: 'Insufficient Storage: the change was not stored; retry later.',
};

/** Laravel's summary line: the first error, plus "(and N more errors)". */
export function laravelValidationMessage(errors: Record<string, string[]>): string {
  const all = Object.values(errors).flat();
  if (all.length === 0) return LARAVEL_MESSAGES[422]!;
  const more = all.length - 1;
  return more > 0 ? `${all[0]} (and ${more} more error${more > 1 ? 's' : ''})` : all[0]!;
}
