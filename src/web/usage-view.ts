/**
 * A customer's plan windows and its calls per hour over 7 days, as the
 * console's Customers page and the account page both show them (one
 * browser module, bundled into each page's script).
 */
import uPlot from 'uplot';
import { yAxis } from './plot';

/** GET /auth/me/usage and GET /admin/usage/customers/{sub} (src/api/usage/routes.ts). */
export interface CustomerUsage {
  rate_limits: {
    plan: { id: number; name: string };
    limits: { window: string; limit: number; used: number; resets_at: string }[];
  };
  calls: { bucketMs: number; from: number; to: number; points: { start: number; calls: number }[] };
}

/** Calls blue, the limit red and dashed. */
const CALLS = '#1f5fa8';
const LIMIT = '#b3261e';

const when = (iso: string | null) =>
  iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) : '—';

/** Each window of the plan: used, limit and when it resets (UTC), as the rows of `table`. */
export function fillWindows(table: HTMLTableElement, usage: CustomerUsage): void {
  const body = table.tBodies[0]!;
  body.replaceChildren();
  for (const window of usage.rate_limits.limits) {
    const row = body.insertRow();
    for (const text of [window.window, String(window.used), String(window.limit)]) {
      row.insertCell().textContent = text;
    }
    row.insertCell().textContent = when(window.resets_at);
  }
}

/** The hourly limit drawn on the plot: the hour window's, else the minute's × 60. */
function hourlyLimit(limits: CustomerUsage['rate_limits']['limits']): number {
  const hour = limits.find((window) => window.window === 'hour');
  return hour ? hour.limit : (limits.find((window) => window.window === 'minute')?.limit ?? 0) * 60;
}

/** Calls per hour, every hour of the span (none: 0), with the hourly limit drawn across. */
export function drawCallsPlot(target: HTMLElement, usage: CustomerUsage, height = 200): void {
  const { from, to, bucketMs, points } = usage.calls;
  const starts: number[] = [];
  for (let t = from; t <= to; t += bucketMs) starts.push(t);
  const calls = new Map(points.map((point) => [point.start, point.calls]));
  const limit = hourlyLimit(usage.rate_limits.limits);
  target.replaceChildren();
  new uPlot(
    {
      width: Math.max(280, target.clientWidth || 600),
      height,
      legend: { show: true },
      axes: [{}, yAxis()],
      series: [
        {},
        { label: 'calls', stroke: CALLS, width: 2 },
        { label: 'hourly limit', stroke: LIMIT, width: 2, dash: [6, 4] },
      ],
    },
    [starts.map((t) => t / 1000), starts.map((t) => calls.get(t) ?? 0), starts.map(() => limit)],
    target,
  );
}
