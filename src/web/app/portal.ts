/**
 * The account page's usage and webhooks: the signed-in caller's plan and
 * windows and its calls per hour over 7 days (GET /auth/me/usage, plotted
 * with uPlot bundled into this script), and its webhook endpoints with
 * their newest deliveries, each redeliverable (the /listings/webhooks
 * routes with the session cookie). Read-only apart from redelivery.
 */
import type { Delivery, Webhook } from '@/webhooks/schemas';
import { type CustomerUsage, drawCallsPlot, fillWindows } from '../usage-view';
import { api } from './api';

const element = <T extends HTMLElement = HTMLElement>(id: string) =>
  document.getElementById(id) as T;

const when = (iso: string | null) =>
  iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) : '—';

function cell(row: HTMLTableRowElement, text: string): void {
  row.insertCell().textContent = text;
}

async function showUsage(): Promise<void> {
  const usage = await api<CustomerUsage>('GET', '/auth/me/usage');
  element('plan-name').textContent = usage.rate_limits.plan.name;
  fillWindows(element<HTMLTableElement>('usage-windows'), usage);
  drawCallsPlot(element('usage-plot'), usage);
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
