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

/**
 * Each request answers the same through the service (fast lane included)
 * as through the full Elysia pipeline. Sent twice to the service first, so
 * a bearer token is verified and remembered and the second is a fast one.
 * Answers the service's snapshots. `ignored` headers are left out of the
 * comparison (those that count the requests themselves).
 */
export async function expectSameAnswers(
  ctx: Pick<TestContext, 'fetch' | 'fullPipeline'>,
  cases: LaneCase[],
  ignored: readonly string[] = [],
) {
  const answers = [];
  for (const [path, headers] of cases) {
    await ctx.fetch(new Request(`${BASE}${path}`, { headers }));
    const fast = await snapshot(ctx.fetch, path, headers, ignored);
    const full = await snapshot(ctx.fullPipeline, path, headers, ignored);
    expect({ path, sent: headers, ...fast }).toEqual({ path, sent: headers, ...full });
    answers.push(fast);
  }
  return answers;
}
