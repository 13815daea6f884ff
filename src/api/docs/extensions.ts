import type { DocumentDecoration } from 'elysia';

/**
 * A route fact for the OpenAPI document, set by a macro in the route's
 * `detail` (an `x-` extension, which DocumentDecoration does not type) and
 * read and removed by src/api/docs/operations.ts.
 */
export const docExtension = (values: Record<`x-${string}`, unknown>): DocumentDecoration =>
  values as DocumentDecoration;
