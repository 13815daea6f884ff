/**
 * The console's Webhooks page: every endpoint's last day from
 * GET /admin/webhooks/summary, an endpoint's recent deliveries with a
 * redelivery, and disabling or enabling an endpoint, all through the
 * webhook routes an employee may call on any endpoint.
 */
import type { Delivery, WebhookSummary } from '@/webhooks/schemas';
import { api, byId, cell, time } from './dom';

type Endpoint = WebhookSummary['endpoints'][number];

const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 1000) / 10}%`);

function button(label: string, name: string, action: () => Promise<void>): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.textContent = label;
  element.setAttribute('aria-label', name);
  element.addEventListener('click', () => {
    action().catch((error: unknown) => {
      byId('webhooks-status').textContent = `${name} failed: ${String(error)}`;
    });
  });
  return element;
}

const hookPath = (id: string) => `/listings/webhooks/${encodeURIComponent(id)}`;

async function showDeliveries(endpoint: Pick<Endpoint, 'id' | 'url'>): Promise<void> {
  const log = await api<{ data: Delivery[] }>(`${hookPath(endpoint.id)}/deliveries`);
  byId('webhook-deliveries').hidden = false;
  byId('webhook-deliveries-title').textContent = `Deliveries to ${endpoint.url}`;
  const body = byId<HTMLTableElement>('deliveries').tBodies[0]!;
  body.replaceChildren();
  for (const delivery of log.data.slice(0, 20)) {
    const row = body.insertRow();
    cell(row, delivery.eventType);
    cell(row, delivery.status);
    cell(row, String(delivery.attempts));
    cell(row, delivery.responseStatus === null ? '—' : String(delivery.responseStatus));
    cell(row, delivery.error ?? '—');
    cell(row, time(delivery.lastAttemptAt));
    row.insertCell().append(
      button('Redeliver', `Redeliver delivery ${delivery.id}`, async () => {
        await api(`${hookPath(endpoint.id)}/deliveries/${delivery.id}/redeliver`, {
          method: 'POST',
        });
        await showDeliveries(endpoint);
        byId('webhooks-status').textContent = `Delivery ${delivery.id} is due again.`;
      }),
    );
  }
  if (log.data.length === 0) cell(body.insertRow(), 'No deliveries yet.');
}

async function setEnabled(endpoint: Endpoint, enabled: boolean): Promise<void> {
  await api(hookPath(endpoint.id), { method: 'PATCH', body: JSON.stringify({ enabled }) });
  await showWebhooks();
  byId('webhooks-status').textContent = `${endpoint.url} ${enabled ? 'enabled' : 'disabled'}.`;
}

async function loadWebhooks(): Promise<void> {
  const summary = await api<WebhookSummary>('/admin/webhooks/summary');
  const body = byId<HTMLTableElement>('webhooks-table').tBodies[0]!;
  body.replaceChildren();
  for (const endpoint of summary.endpoints) {
    const row = body.insertRow();
    cell(row, endpoint.url);
    cell(row, endpoint.ownerId ?? 'employees');
    cell(
      row,
      endpoint.enabled
        ? 'enabled'
        : `disabled${endpoint.disabledReason ? `: ${endpoint.disabledReason}` : ''}`,
    );
    cell(row, `${percent(endpoint.successRate)} of ${endpoint.attempted}`);
    cell(row, endpoint.p99DurationMs === null ? '—' : `${endpoint.p99DurationMs} ms`);
    cell(
      row,
      endpoint.lastError ? `${endpoint.lastError.error} (${time(endpoint.lastError.at)})` : '—',
    );
    const actions = row.insertCell();
    actions.className = 'actions';
    actions.append(
      button('Deliveries', `Deliveries to ${endpoint.url}`, () => showDeliveries(endpoint)),
      endpoint.enabled
        ? button('Disable', `Disable ${endpoint.url}`, () => setEnabled(endpoint, false))
        : button('Enable', `Enable ${endpoint.url}`, () => setEnabled(endpoint, true)),
    );
  }
  if (summary.endpoints.length === 0) cell(body.insertRow(), 'No webhook endpoints.');
  const count = summary.endpoints.length;
  byId('webhooks-status').textContent =
    `${count} endpoint${count === 1 ? '' : 's'}, ${time(summary.from)} to ${time(summary.to)} UTC.`;
}

export function showWebhooks(): Promise<void> {
  return loadWebhooks().catch((error: unknown) => {
    byId('webhooks-status').textContent = `Could not load the webhooks: ${String(error)}`;
  });
}

export function wireWebhooks(): void {
  byId<HTMLButtonElement>('webhooks-refresh').addEventListener('click', () => {
    showWebhooks();
  });
}
