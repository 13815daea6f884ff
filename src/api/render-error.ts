import { type AppError, MethodNotAllowed, TooManyRequests, Unprocessable } from '@/kernel/errors';
import { LARAVEL_MESSAGES, laravelValidationMessage, problemOf } from './problem';

export const isCustomerApi = (path: string) => path === '/api/v1' || path.startsWith('/api/v1/');

function json(body: unknown, status: number, contentType: string, extra?: Record<string, string>) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': contentType, ...extra },
  });
}

export function renderError(error: AppError, path: string): Response {
  const headers: Record<string, string> = {};
  if (error instanceof MethodNotAllowed) headers.allow = error.allow.join(', ');
  if (error instanceof TooManyRequests)
    headers['retry-after'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  if (error instanceof TooManyRequests && error.body) {
    return json(error.body, 429, 'application/json', headers);
  }
  if (isCustomerApi(path)) {
    const body =
      error instanceof Unprocessable
        ? { message: laravelValidationMessage(error.errors ?? {}), errors: error.errors ?? {} }
        : { message: LARAVEL_MESSAGES[error.status] ?? LARAVEL_MESSAGES[500] };
    return json(body, error.status, 'application/json', headers);
  }
  const problem =
    error instanceof Unprocessable
      ? problemOf(422, undefined, error.validationMessages)
      : problemOf(error.status, error.detail);
  return json(problem, error.status, 'application/problem+json', headers);
}
