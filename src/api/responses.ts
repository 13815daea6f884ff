import { z } from 'zod';
import { BadRequestProblem, Problem, ValidationProblem } from './problem';

/** 201 and 204 answers carry no body. */
export const NoBody = z.null().describe('No body');

/**
 * Response schemas of the error statuses a route lists. The document shows
 * each as the shared answer of its status (src/api/docs): problem details
 * outside /api/v1, the customer API's own JSON inside.
 */
export function problems<const S extends readonly number[]>(...statuses: S) {
  const schemaOf = (status: number) =>
    status === 422 ? ValidationProblem : status === 400 ? BadRequestProblem : Problem;
  return Object.fromEntries(statuses.map((status) => [status, schemaOf(status)])) as {
    [K in S[number]]: K extends 422
      ? typeof ValidationProblem
      : K extends 400
        ? typeof BadRequestProblem
        : typeof Problem;
  };
}

interface ResponseSet {
  status?: number | string;
  headers: Record<string, string | number>;
}

/** 201, no body, `Location` of the new resource. */
export function created(set: ResponseSet, location: string): null {
  set.status = 201;
  set.headers.location = location;
  return null;
}

/** 204, no body. */
export function noContent(set: ResponseSet): null {
  set.status = 204;
  return null;
}
