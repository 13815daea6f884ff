import { z } from 'zod';
import { TAG_LIST_MAX } from '@/listings/properties/etag';

/** `If-Match` on the write routes (documented as a header parameter, bounded). */
export const IfMatchHeaders = z.object({
  'if-match': z
    .string()
    .max(TAG_LIST_MAX)
    .optional()
    .describe(
      'ETag of GET /listings/properties/{id} (or *): the write happens only if the property ' +
        'still has it, else 412. Omitted: unconditional.',
    ),
});

/** `If-None-Match` on GET /properties/{id}. */
export const IfNoneMatchHeaders = z.object({
  'if-none-match': z
    .string()
    .max(TAG_LIST_MAX)
    .optional()
    .describe('ETag(s) the client holds: 304 without a body when one is current.'),
});

export { withETag } from '../../docs/headers';
