import { z } from 'zod';
import { TAG_LIST_MAX } from '@/kernel/preconditions';
import { ifMatchHeaders } from '../../docs/headers';

/** `If-Match` on the write routes. */
export const IfMatchHeaders = ifMatchHeaders('GET /listings/properties/{id}');

/** `If-None-Match` on GET /properties/{id}. */
export const IfNoneMatchHeaders = z.object({
  'if-none-match': z
    .string()
    .max(TAG_LIST_MAX)
    .optional()
    .describe('ETag(s) the client holds: 304 without a body when one is current.'),
});

export { withETag } from '../../docs/headers';
