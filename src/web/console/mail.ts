/**
 * The console's Mail page: the outbox from GET /admin/mail — how many
 * messages wait and how many failed, and the newest ones with the SMTP
 * server's last answer.
 */
import type { OutboxView } from '@/mail/schemas';
import { api, byId, cell, time } from './dom';

async function loadMail(): Promise<void> {
  const view = await api<OutboxView>('/admin/mail');
  const body = byId<HTMLTableElement>('mail-table').tBodies[0]!;
  body.replaceChildren();
  for (const message of view.messages) {
    const row = body.insertRow();
    cell(row, message.recipient);
    cell(row, `${message.template} (${message.language}): ${message.subject}`);
    cell(row, message.status);
    cell(row, String(message.attempts));
    cell(row, time(message.nextAttemptAt));
    cell(row, message.lastResponse ?? '—');
    cell(row, time(message.createdAt));
  }
  if (view.messages.length === 0) cell(body.insertRow(), 'No mail yet.');
  byId('mail-status').textContent =
    `${view.pending} waiting, ${view.failed} failed (kept 30 days). Updated ${time(new Date().toISOString())} UTC.`;
}

export function showMail(): Promise<void> {
  return loadMail().catch((error: unknown) => {
    byId('mail-status').textContent = `Could not load the mail outbox: ${String(error)}`;
  });
}

export function wireMail(): void {
  byId<HTMLButtonElement>('mail-refresh').addEventListener('click', () => {
    showMail();
  });
}
