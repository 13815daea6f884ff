import { expect } from 'bun:test';
import { BASE, type TestContext } from './harness';

type Handle = (request: Request) => Response | Promise<Response>;

/** Status, headers (minus the per-request ones) and body text. */
export async function snapshot(
  handle: Handle,
  path: string,
  headers: Record<string, string>,
  ignored: readonly string[] = [],
) {
  const response = await handle(new Request(`${BASE}${path}`, { headers }));
  const skip = new Set(['x-request-id', 'date', ...ignored]);
  const shown = Object.fromEntries([...response.headers].filter(([name]) => !skip.has(name)));
  return { status: response.status, headers: shown, body: await response.text() };
}

/** A request: its path and headers. */
export type LaneCase = [path: string, headers: Record<string, string>];

/** Which lane answered: the fast lane, or the full pipeline behind it. */
export type Lane = 'fast' | 'full';

type LaneContext = Pick<TestContext, 'fetch' | 'fullPipeline' | 'lanes'>;

/** One request through the service, with the lane that answered it. */
export async function laneSnapshot(
  ctx: LaneContext,
  path: string,
  headers: Record<string, string>,
  ignored: readonly string[] = [],
) {
  const before = ctx.lanes.fast;
  const answer = await snapshot(ctx.fetch, path, headers, ignored);
  const lane: Lane = ctx.lanes.fast > before ? 'fast' : 'full';
  return { ...answer, lane };
}

/**
 * Each request answers the same through the service (fast lane included)
 * as through the full Elysia pipeline. Sent twice to the service first, so
 * a bearer token is verified and remembered and the second can be a fast
 * one. Answers the service's snapshots with the lane that answered each
 * (`${status} ${lane}` in `lanesOf`), so a test shows which cases the fast
 * lane must answer and which it must leave to the full pipeline. `ignored`
 * headers are left out of the comparison (those that count the requests
 * themselves).
 */
export async function expectSameAnswers(
  ctx: LaneContext,
  cases: LaneCase[],
  ignored: readonly string[] = [],
) {
  const answers = [];
  for (const [path, headers] of cases) {
    await ctx.fetch(new Request(`${BASE}${path}`, { headers }));
    const { lane, ...fast } = await laneSnapshot(ctx, path, headers, ignored);
    const full = await snapshot(ctx.fullPipeline, path, headers, ignored);
    expect({ path, sent: headers, ...fast }).toEqual({ path, sent: headers, ...full });
    answers.push({ ...fast, lane });
  }
  return answers;
}

/** `200 fast`, `404 full`, … for each answer. */
export const lanesOf = (answers: readonly { status: number; lane: Lane }[]) =>
  answers.map(({ status, lane }) => `${status} ${lane}`);
