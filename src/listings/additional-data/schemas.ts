import { z } from 'zod';
import { text } from '@/listings/properties/schemas';

export const MAX_DATA_BYTES = 64 * 1024;
const encoder = new TextEncoder();

/** A JSON object (not an array, string or null) of at most 64 KiB as JSON. */
export const Data = z
  .looseObject({})
  .refine((data) => encoder.encode(JSON.stringify(data)).byteLength <= MAX_DATA_BYTES, {
    message: `The data must be at most ${MAX_DATA_BYTES} bytes of JSON`,
    params: { rule: 'tooLarge' },
  })
  .describe('Free-form JSON object, at most 64 KiB');
export type Data = z.infer<typeof Data>;

/** POST /properties/additional-data. */
export const AdditionalDataCreate = z.strictObject({ id: text(), data: Data });

/** PUT /properties/{id}/additional-data: creates or replaces. */
export const AdditionalDataPut = z.strictObject({ data: Data });

export const AdditionalData = z.object({ id: z.string(), data: Data });
export const AdditionalDataWritten = z.object({ data: Data });
