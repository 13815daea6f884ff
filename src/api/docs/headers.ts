import { withHeaders } from '@elysiajs/openapi';
import { z } from 'zod';
import { TAG_LIST_MAX } from '@/kernel/preconditions';

const ETagHeader = z.string().describe('Strong validator of this representation');

/** A response schema documented with the ETag header it carries. */
export const withETag = <S extends z.ZodType>(schema: S) =>
  withHeaders(schema, { ETag: ETagHeader });

/**
 * A response schema documented with the `Location` of the resource it
 * created (and its `ETag` when `etag`: nested `withHeaders` keep only one).
 */
export const withLocation = <S extends z.ZodType>(schema: S, description: string, etag = false) =>
  withHeaders(schema, {
    Location: z.string().describe(description),
    ...(etag ? { ETag: ETagHeader } : {}),
  });

/**
 * The optional `If-Match` of a write (documented as a header parameter,
 * bounded): `source` names the read whose ETag it takes.
 */
export const ifMatchHeaders = (source: string) =>
  z.object({
    'if-match': z
      .string()
      .max(TAG_LIST_MAX)
      .optional()
      .describe(
        `ETag of ${source} (or *): the write happens only if the resource still has it, else 412 ` +
          'and nothing is written. Omitted: unconditional.',
      ),
  });
