import { Elysia, ValidationError } from 'elysia';
import type { z } from 'zod';
import type { Handle } from '@/api/pipeline';
import { securityHeaders } from '@/api/request/headers';
import { requestIdOf } from '@/api/request/meta';
import { pathOf } from '@/api/request/url';
import {
  isPostgresUnavailable,
  isUnstorableText,
  POSTGRES_RETRY_AFTER_SECONDS,
} from '@/db/pg/connection';
import { type StorageFailure, storageFailureOf } from '@/db/storage-failure';
import { DomainError, fail } from '@/kernel/errors';
import { invalidParamsOf, type ParamSource } from '@/kernel/invalid-params';
import type { Logger } from '@/logger';
import type { ErrorFamilyOf } from '../error-family';
import { INTERNAL, renderError, statusOf } from '../errors';
import { mapIssues } from '../validation';
import { answersUnprocessable } from './body-rules';

type Issue = z.core.$ZodIssue;

/** Re-runs the failed zod schema to get every issue, not only the first. */
function issuesOf(error: ValidationError): Issue[] {
  const validator = error.validator as {
    '~standard'?: { validate(v: unknown): unknown };
    schema?: { '~standard'?: { validate(v: unknown): unknown } };
  };
  const standard = validator['~standard'] ?? validator.schema?.['~standard'];
  const result = standard?.validate(error.value) as { issues?: Issue[] } | undefined;
  return result?.issues ?? [];
}

/** Where each kind of Elysia validation reads its input, for naming what it refused. */
const SOURCES: Record<string, ParamSource | undefined> = {
  body: 'body',
  query: 'query',
  params: 'path',
};

/** Turns Elysia's validation failure into the domain error it means. */
function fromValidation(error: ValidationError, request: Request) {
  const issues = issuesOf(error);
  const source = SOURCES[error.type];
  const malformed = () =>
    fail('request.malformed', {
      invalidParams: source && invalidParamsOf(issues, error.value, source),
    });
  if (error.type !== 'body') return malformed();
  const mapped = mapIssues(issues, error.value);
  if (mapped.rootInvalid) return malformed();
  // 422 or 400 is the matched route's declaration (`badBody`, src/api/plugins/body-rules.ts).
  if (answersUnprocessable(request)) return fail('request.invalid', { fields: mapped.failures });
  return malformed();
}

/**
 * The log line's account of an unhandled error. A response that fails its
 * schema names only the failing fields: Elysia's message carries the value,
 * which may hold what must never be logged (a hash, a token).
 */
function describeUnhandled(error: unknown): string {
  if (error instanceof ValidationError) {
    const fields = issuesOf(error).map((issue) => issue.path.map(String).join('.') || '(root)');
    return `ValidationError: the ${error.type} does not match its schema at ${[...new Set(fields)].join(', ') || '(root)'}`;
  }
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

export interface ErrorHandlerOptions {
  logger: Logger;
  /** Methods registered for a path, for 405 + Allow (filled once routes exist). */
  allowedMethods: (path: string) => string[];
  /** The error family of a path, as the route groups declared it (filled once routes exist). */
  errorFamilyOf: ErrorFamilyOf;
  /** Told of every write a database refused for want of storage; answers the reason the disk shows. */
  storageRefused?: (failure: StorageFailure) => StorageFailure;
}

/** Seconds a caller is asked to wait after a write refused for want of storage. */
const STORAGE_RETRY_AFTER_SECONDS = 30;

const STORAGE_DETAILS: Record<StorageFailure, string> = {
  full: 'Storage is full: the change was not stored and nothing of it was written; retry after Retry-After seconds',
  'read-only':
    "Storage is read-only: the database's file system refuses writes, so the change was not stored and nothing of it was written; retry after Retry-After seconds",
};

/**
 * The answer to a write a database refused for want of storage: 507, in the
 * route's error family, never a 500. The transaction was rolled back whole;
 * the disk monitor hears of it (its state, one log line per change, not one
 * per request).
 */
function storageFull(
  failure: StorageFailure,
  refused: (failure: StorageFailure) => StorageFailure = (reason) => reason,
) {
  const reason = refused(failure);
  return fail('storage.full', {
    detail: STORAGE_DETAILS[reason],
    retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS,
  });
}

/** The one place that turns every failure into its error body (docs/errors.md). */
export const errorHandler = ({
  logger,
  allowedMethods,
  errorFamilyOf,
  storageRefused,
}: ErrorHandlerOptions) =>
  new Elysia({ name: 'error-handler' }).onError(
    { as: 'global' },
    ({ code, error, request, path, set }) => {
      let known: DomainError | undefined;
      const storage = storageFailureOf(error);
      if (error instanceof DomainError) known = error;
      else if (code === 'PARSE') {
        const cause = (error as Error).cause;
        known = cause instanceof DomainError ? cause : fail('request.malformed');
      } else if (
        code === 'VALIDATION' &&
        error instanceof ValidationError &&
        // A handler's answer failing its own response schema is a server
        // fault: it falls through to the logged 500, not a 400 to the client.
        error.type !== 'response'
      ) {
        known = fromValidation(error, request);
      } else if (code === 'NOT_FOUND') {
        const allow = allowedMethods(path);
        known =
          allow.length > 0 ? fail('route.method_not_allowed', { allow }) : fail('route.not_found');
      } else if (code === 'INVALID_COOKIE_SIGNATURE') known = fail('request.malformed');
      else if (isUnstorableText(error)) known = fail('request.malformed');
      else if (storage) known = storageFull(storage, storageRefused);
      else if (isPostgresUnavailable(error)) {
        // The transaction, if one began, is rolled back: nothing is half-written.
        logger.warn('postgresql unavailable', {
          requestId: requestIdOf(request),
          method: request.method,
          path,
          error: describeUnhandled(error),
        });
        known = fail('service.unavailable', { retryAfterSeconds: POSTGRES_RETRY_AFTER_SECONDS });
      }
      if (known) {
        set.status = statusOf(known);
        return renderError(known, errorFamilyOf(path));
      }

      // Logged with the request id; the response carries nothing internal.
      logger.error('unhandled error', {
        requestId: requestIdOf(request),
        method: request.method,
        path,
        code: String(code),
        error: describeUnhandled(error),
      });
      set.status = 500;
      return renderError(INTERNAL, errorFamilyOf(path));
    },
  );

/**
 * The last line: a failure that escapes the error handler (it threw itself)
 * is still the logged 500 problem, never Bun's own error page, which shows the
 * message, working directory and stack outside production.
 */
export function withBackstop(
  handle: Handle,
  logger: Logger,
  errorFamilyOf: ErrorFamilyOf,
): (request: Request) => Promise<Response> {
  return async (request) => {
    try {
      return await handle(request);
    } catch (error) {
      return unhandled(error, request, logger, errorFamilyOf);
    }
  };
}

/**
 * The logged 500 problem for a failure nothing else caught (a storage
 * failure: its 507), with the security headers.
 */
export function unhandled(
  error: unknown,
  request: Request,
  logger: Logger,
  errorFamilyOf: ErrorFamilyOf,
): Response {
  const pathname = pathOf(request.url);
  // A write refused for want of storage that escaped a hook is still its 507, not a failure to log.
  const storage = storageFailureOf(error);
  if (!storage) {
    logger.error('unhandled error', {
      requestId: requestIdOf(request),
      method: request.method,
      path: pathname,
      code: 'ESCAPED',
      error: describeUnhandled(error),
    });
  }
  const response = renderError(storage ? storageFull(storage) : INTERNAL, errorFamilyOf(pathname));
  for (const [name, value] of Object.entries(securityHeaders)) response.headers.set(name, value);
  return response;
}
