/** The account page's list of recent security events (GET /auth/security-log). */
import { api } from './api';

interface SecurityEvent {
  id: string;
  at: string;
  action: string;
  ip: string | null;
  userAgent: string | null;
  details: Record<string, unknown>;
  /** More than 1: repeats counted into one event (docs/accounts.md). */
  count: number;
}

const labels: Record<string, string> = {
  'sign_in.succeeded': 'Signed in',
  'sign_in.failed': 'Failed sign-in',
  'sign_in.refused': 'Sign-in refused',
  sign_out: 'Signed out',
  sign_up: 'Account created',
  'account.created': 'Account created by an administrator',
  'passkey.added': 'Passkey added',
  'passkey.renamed': 'Passkey renamed',
  'passkey.deleted': 'Passkey deleted',
  'session.revoked': 'Signed out a session',
  'sessions.ended_all': 'Signed out everywhere',
  'password.changed': 'Password changed',
  'password_reset.requested': 'Password reset link sent',
  'password.reset': 'Password reset',
  'email_verification.sent': 'Email verification link sent',
  'email.verified': 'Email address verified',
  'email_change.requested': 'Email change asked for',
  'email.changed': 'Email address changed',
  'account.role_changed': 'Role changed by an administrator',
  'account.disabled': 'Account disabled by an administrator',
  'account.enabled': 'Account enabled by an administrator',
  'account.password_set': 'Password set by an administrator',
  'customer_plan.set': 'Plan changed by an administrator',
  'employee_limit.set': 'Rate limit changed by an administrator',
  'property.owner_changed': 'A property was assigned to you',
  'webhook.disabled': 'A webhook endpoint was disabled by the service',
  'replication.degraded': 'The replica of the database fell behind',
  'replication.recovered': 'The replica of the database caught up',
  'disk.low': 'Free disk space fell under the threshold',
  'disk.full': 'Writes were refused: the disk is full or read-only',
  'disk.recovered': 'Free disk space is back over the threshold',
  'backup.skipped': 'A backup was skipped for want of disk space',
  'notification.queued': 'Email notification queued',
  'notification.dropped': 'Email notification not sent (too many this hour)',
};

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function describeEvent(event: SecurityEvent): string {
  let label = labels[event.action] ?? event.action;
  // Refusals are always counted; other events only past the hourly limit.
  if (event.action === 'sign_in.refused' || event.count > 1) {
    label += event.count === 1 ? ' once' : ` ${event.count} times`;
  }
  const { method, name, kind } = event.details;
  if (method === 'passkey' || method === 'password') label += ` with a ${method}`;
  if (typeof name === 'string') label += ` “${name}”`;
  if (typeof kind === 'string') label += `: ${kind.replace('-', ' ')}`;
  return label;
}

function itemOf(event: SecurityEvent): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'event';
  item.dataset.action = event.action;
  const what = document.createElement('div');
  what.className = 'name';
  what.textContent = describeEvent(event);
  const meta = document.createElement('div');
  meta.className = 'meta';
  const where = event.ip === null ? [] : [`from ${event.ip}`];
  meta.textContent = [dateFormat.format(new Date(event.at)), ...where].join(' · ');
  if (event.userAgent) meta.title = event.userAgent;
  item.append(what, meta);
  return item;
}

/** Shows the account's 10 newest events in `list`. */
export async function showSecurityLog(list: HTMLUListElement) {
  const page = await api<{ events: SecurityEvent[] }>('GET', '/auth/security-log?limit=10');
  list.replaceChildren(...page.events.map(itemOf));
}
