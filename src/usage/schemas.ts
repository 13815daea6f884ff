import { z } from 'zod';

const epochMs = z.int().meta({ description: 'Epoch milliseconds', example: 1795780800000 });

/** GET /admin/usage/requests: which resolution, how many hours back. */
export const RequestFiguresQuery = z.strictObject({
  resolution: z.enum(['minute', 'hour']).default('minute'),
  hours: z.coerce.number().int().min(1).max(720).default(1),
});
export type RequestFiguresQuery = z.output<typeof RequestFiguresQuery>;

export const RequestPoint = z.object({
  start: epochMs,
  requests: z.int(),
  errors: z.int().meta({ description: 'Answers with a 5xx status' }),
  p99Ms: z
    .number()
    .nullable()
    .meta({ description: 'Upper bound of the latency bucket holding the 99th percentile' }),
});

export const RequestFigures = z.object({
  resolution: z.enum(['minute', 'hour']),
  bucketMs: z.int(),
  from: epochMs,
  to: epochMs,
  groups: z.array(
    z.object({
      group: z.string().meta({ example: '/listings' }),
      points: z.array(RequestPoint),
    }),
  ),
});

export type RequestFigures = z.infer<typeof RequestFigures>;

/** ?hours= of the customer usage reads (7 days unless asked). */
export const CallFiguresQuery = z.strictObject({
  hours: z.coerce.number().int().min(1).max(720).default(168),
});
export type CallFiguresQuery = z.output<typeof CallFiguresQuery>;

export const CallFigures = z.object({
  bucketMs: z.int(),
  from: epochMs,
  to: epochMs,
  points: z.array(z.object({ start: epochMs, calls: z.int() })),
});
