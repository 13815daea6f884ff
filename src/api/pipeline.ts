/** What each stage of the request pipeline wraps, and what `Bun.serve` calls. */
export type Handle = (request: Request) => Response | Promise<Response>;

/** One stage: given the rest of the pipeline, the handler that runs this stage first. */
export type Stage = (next: Handle) => Handle;

/**
 * The stages in the order a request passes them, top to bottom, ending in
 * `handle`: the first stage listed sees the request first and the response
 * last.
 */
export const throughStages = (stages: readonly Stage[], handle: Handle): Handle =>
  stages.reduceRight<Handle>((next, stage) => stage(next), handle);
