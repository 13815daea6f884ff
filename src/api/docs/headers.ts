import { withHeaders } from '@elysiajs/openapi';
import { z } from 'zod';

const ETagHeader = z.string().describe('Strong validator of this representation');

/** A response schema documented with the ETag header it carries. */
export const withETag = <S extends z.ZodType>(schema: S) =>
  withHeaders(schema, { ETag: ETagHeader });

/** A response schema documented with the `Location` of the resource it created. */
export const withLocation = <S extends z.ZodType>(schema: S, description: string) =>
  withHeaders(schema, { Location: z.string().describe(description) });
