import { z } from 'zod';
import { Problem } from './problem';

const problemSchema = z.toJSONSchema(Problem);

/**
 * OpenAPI responses of the error statuses of a route that answers a raw
 * `Response` (a file, the metrics text): such a route declares no response
 * schemas, so its statuses are documented by hand.
 */
export const problemResponses = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: 'application/problem+json',
        content: { 'application/problem+json': { schema: problemSchema } },
      },
    ]),
  );
