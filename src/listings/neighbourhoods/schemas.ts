import { z } from 'zod';
import { CityId, text } from '@/listings/properties/schemas';

export const Neighbourhood = z.object({ id: z.string(), cityId: CityId, name: z.string() });
export type Neighbourhood = z.infer<typeof Neighbourhood>;

export const NeighbourhoodList = z.object({ neighbourhoods: z.array(Neighbourhood) });

export const NeighbourhoodParams = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][\w-]{0,63}$/, 'must be 1 to 64 letters, digits, _ and -, not first _ or -')
    .describe('Catalogue id: letters, digits, _ and -, at most 64'),
});

export const NeighbourhoodBody = z.strictObject({ cityId: CityId, name: text(120) });
export type NeighbourhoodBody = z.infer<typeof NeighbourhoodBody>;

export const NeighbourhoodQuery = z.strictObject({ cityId: CityId.optional() });
