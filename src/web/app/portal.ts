/**
 * The account page's usage and webhooks: the signed-in caller's plan and
 * windows and its calls per hour over 7 days (GET /auth/me/usage, plotted
 * with uPlot bundled into this script), and its webhook endpoints with
 * their newest deliveries, each redeliverable (the /listings/webhooks
 * routes with the session cookie). Read-only apart from redelivery.
 */
import uPlot from 'uplot';
import type { Delivery, Webhook } from '@/webhooks/schemas';
import { api } from './api';

/** GET /auth/me/usage (CustomerUsage in src/api/usage/routes.ts). */
interface Usage {
  rate_limits: {
    plan: { name: string };
    limits: { window: string; limit: number; used: number; resets_at: string }[];
  };
  calls: { bucketMs: number; from: number; to: number; points: { start: number; calls: number }[] };
}

const element = <T extends HTMLElement = HTMLElement>(id: string) =>
  document.getElementById(id) as T;

const when = (iso: string | null) =>
  iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) : '—';

function cell(row: HTMLTableRowElement, text: string): void {
  row.insertCell().textContent = text;
}

/** The hourly limit drawn on the plot: the hour window's, else the minute's × 60. */
function hourlyLimit(limits: Usage['rate_limits']['limits']): number {
  const hour = limits.find((window) => window.window === 'hour');
  return hour ? hour.limit : (limits.find((window) => window.window === 'minute')?.limit ?? 0) * 60;
}

async function showUsage(): Promise<void> {
  const usage = await api<Usage>('GET', '/auth/me/usage');
  element('plan-name').textContent = usage.rate_limits.plan.name;
  const body = element<HTMLTableElement>('usage-windows').tBodies[0]!;
  body.replaceChildren();
  for (const window of usage.rate_limits.limits) {
    const row = body.insertRow();
    cell(row, window.window);
    cell(row, String(window.used));
    cell(row, String(window.limit));
    cell(row, when(window.resets_at));
  }
  const { from, to, bucketMs, points } = usage.calls;
  const starts: number[] = [];
  for (let t = from; t <= to; t += bucketMs) starts.push(t);
  const calls = new Map(points.map((point) => [point.start, point.calls]));
  const limit = hourlyLimit(usage.rate_limits.limits);
  const target = element('usage-plot');
  target.replaceChildren();
  new uPlot(
    {
      width: Math.max(280, target.clientWidth || 600),
      height: 200,
      series: [
        {},
        { label: 'calls', stroke: '#1f5fa8', width: 2 },
        { label: 'hourly limit', stroke: '#b3261e', width: 2, dash: [6, 4] },
      ],
    },
    [starts.map((t) => t / 1000), starts.map((t) => calls.get(t) ?? 0), starts.map(() => limit)],
    target,
  );
}

function redeliverButton(endpoint: Webhook, delivery: Delivery): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary';
  button.textContent = 'Redeliver';
  button.setAttribute('aria-label', `Redeliver delivery ${delivery.id}`);
  button.addEventListener('click', () => {
    button.disabled = true;
    const path = `/listings/webhooks/${encodeURIComponent(endpoint.id)}/deliveries/${delivery.id}/redeliver`;
    api('POST', path)
      .then(() => showWebhooks())
      .then(() => {
        element('webhooks-status').textContent = `Delivery ${delivery.id} will be sent again.`;
      })
      .catch((error: unknown) => {
        button.disabled = false;
        element('webhooks-status').textContent =
          `Delivery ${delivery.id} was not redelivered: ${String(error)}`;
      });
  });
  return button;
}

async function endpointView(endpoint: Webhook): Promise<HTMLElement> {
  const { data } = await api<{ data: Delivery[] }>(
    'GET',
    `/listings/webhooks/${encodeURIComponent(endpoint.id)}/deliveries`,
  );
  const section = document.createElement('section');
  section.className = 'endpoint';
  const title = document.createElement('h3');
  title.textContent = endpoint.url;
  const state = document.createElement('p');
  state.className = 'hint';
  state.textContent = endpoint.enabled
    ? `Enabled; events: ${endpoint.types.join(', ') || 'all'}`
    : `Disabled${endpoint.disabledReason ? `: ${endpoint.disabledReason}` : ''}`;
  section.append(title, state);
  if (data.length === 0) {
    const empty = document.createElement('p');
    empty.className = 'empty';
    empty.textContent = 'No deliveries yet.';
    section.append(empty);
    return section;
  }
  const table = document.createElement('table');
  table.createCaption().textContent = `Newest deliveries to ${endpoint.url}`;
  const head = table.createTHead().insertRow();
  for (const label of ['Event', 'Status', 'Attempts', 'Answer', 'Error', 'Last attempt', 'Send']) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = label;
    head.append(th);
  }
  const body = table.createTBody();
  for (const delivery of data.slice(0, 10)) {
    const row = body.insertRow();
    cell(row, delivery.eventType);
    cell(row, delivery.status);
    cell(row, String(delivery.attempts));
    cell(row, delivery.responseStatus === null ? '—' : String(delivery.responseStatus));
    cell(row, delivery.error ?? '—');
    cell(row, when(delivery.lastAttemptAt));
    row.insertCell().append(redeliverButton(endpoint, delivery));
  }
  const scroll = document.createElement('div');
  scroll.className = 'table-scroll';
  scroll.append(table);
  section.append(scroll);
  return section;
}

async function showWebhooks(): Promise<void> {
  const { data } = await api<{ data: Webhook[] }>('GET', '/listings/webhooks');
  const views = await Promise.all(data.map(endpointView));
  element('webhook-list').replaceChildren(...views);
  element('no-webhooks').hidden = data.length > 0;
}

/** Both cards, each loaded on its own so one failing leaves the other shown. */
export function showPortal(): Promise<unknown> {
  return Promise.all([showUsage(), showWebhooks()]);
}
