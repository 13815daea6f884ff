/**
 * The console's Audit and Backups pages: the audit log with its filters
 * (GET /admin/audit, older pages on request), and the backups with a
 * backup taken now and each one's download link.
 */
import type { AdminAuditPage } from '@/audit/schemas';
import { api, byId, cell, time } from './dom';

let auditFilters = new URLSearchParams();
let nextCursor: string | null = null;

function filtersOfForm(): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of ['actor', 'subject', 'action'] as const) {
    const value = byId<HTMLInputElement>(`audit-${name}`).value.trim();
    if (value) query.set(name, value);
  }
  for (const name of ['from', 'to'] as const) {
    const value = byId<HTMLInputElement>(`audit-${name}`).value;
    // datetime-local is the browser's local time; the API wants an instant.
    if (value) query.set(name, new Date(value).toISOString());
  }
  return query;
}

/** An account as the audit table shows it: its email beside its id, when it still has one. */
function account(id: string | null, emails: AdminAuditPage['emails'] = {}): string {
  if (id === null) return '—';
  const email = Object.hasOwn(emails, id) ? emails[id] : undefined;
  return email ? `${email} (${id})` : id;
}

async function loadAudit(more: boolean): Promise<void> {
  const query = new URLSearchParams(auditFilters);
  if (more && nextCursor) query.set('cursor', nextCursor);
  const search = query.toString();
  const page = await api<AdminAuditPage>(search ? `/admin/audit?${search}` : '/admin/audit');
  const body = byId<HTMLTableElement>('audit-table').tBodies[0]!;
  if (!more) body.replaceChildren();
  for (const event of page.events) {
    const row = body.insertRow();
    cell(row, time(event.at));
    cell(row, event.action);
    cell(row, account(event.actor, page.emails));
    cell(row, account(event.subject, page.emails));
    cell(row, event.target ?? '—');
    cell(row, event.count > 1 ? `${event.count}×` : '1');
  }
  nextCursor = page.nextCursor;
  byId('audit-more').hidden = nextCursor === null;
  byId('audit-status').textContent =
    `${body.rows.length} event${body.rows.length === 1 ? '' : 's'} shown${nextCursor ? ', older ones on request' : ''}.`;
}

const auditFailed = (error: unknown) => {
  byId('audit-status').textContent = `Could not read the audit log: ${String(error)}`;
};

export function showAudit(): Promise<void> {
  return loadAudit(false).catch(auditFailed);
}

interface Backup {
  name: string;
  size: number;
  createdAt: string;
}

async function loadBackups(): Promise<void> {
  const { backups } = await api<{ backups: Backup[] }>('/admin/backups');
  const body = byId<HTMLTableElement>('backups-table').tBodies[0]!;
  body.replaceChildren();
  for (const backup of backups) {
    const row = body.insertRow();
    cell(row, time(backup.createdAt));
    cell(row, `${backup.size} bytes`);
    const link = document.createElement('a');
    link.href = `/admin/backups/${encodeURIComponent(backup.name)}`;
    link.download = backup.name;
    link.textContent = backup.name;
    row.insertCell().append(link);
  }
  if (backups.length === 0) cell(body.insertRow(), 'No backups yet.');
}

const backupStatus = (text: string) => {
  byId('backups-status').textContent = text;
};

export function showBackups(): Promise<void> {
  return loadBackups().catch((error: unknown) =>
    backupStatus(`Could not list the backups: ${String(error)}`),
  );
}

export function wireRecords(): void {
  byId<HTMLFormElement>('audit-filters').addEventListener('submit', (event) => {
    event.preventDefault();
    auditFilters = filtersOfForm();
    loadAudit(false).catch(auditFailed);
  });
  byId('audit-more').addEventListener('click', () => {
    loadAudit(true).catch(auditFailed);
  });
  byId('backup-now').addEventListener('click', () => {
    backupStatus('Taking a backup…');
    api<{ details: { name?: string } }>('/admin/backups', { method: 'POST' })
      .then(async (run) => {
        await loadBackups();
        backupStatus(`Backup ${run.details.name ?? ''} taken.`);
      })
      .catch((error: unknown) => backupStatus(`The backup failed: ${String(error)}`));
  });
}
