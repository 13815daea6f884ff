/**
 * The console's Accounts page: the /admin/users API in a browser. Search
 * by email, role and state; one account at a time to change its role,
 * disable or enable it, mark its unverified address verified, set its
 * password or delete it (a confirmation box the form requires). Every
 * change is audited by the API.
 */
import type { AccountSummary } from '@/accounts/schemas';
import { api, byId, cell, time } from './dom';

let shown: AccountSummary | undefined;

const verification = (account: AccountSummary) =>
  account.emailVerified ? 'verified' : 'unverified';

const status = (text: string) => {
  byId('accounts-status').textContent = text;
};

function searchPath(): string {
  const query = new URLSearchParams();
  const email = byId<HTMLInputElement>('accounts-email').value.trim();
  const role = byId<HTMLSelectElement>('accounts-role').value;
  const state = byId<HTMLSelectElement>('accounts-state').value;
  if (email) query.set('email', email);
  if (role) query.set('role', role);
  if (state) query.set('state', state);
  const search = query.toString();
  return search ? `/admin/users?${search}` : '/admin/users';
}

function showAccount(account: AccountSummary): void {
  shown = account;
  byId('account').hidden = false;
  byId('account-title').textContent = `Account ${account.email}`;
  byId('account-facts').textContent =
    `${account.id}, ${account.role}, ${account.disabled ? `disabled ${time(account.disabledAt)}` : 'active'}, email address ${verification(account)}, created ${time(account.createdAt)}`;
  byId<HTMLSelectElement>('account-role').value = account.role;
  byId('account-toggle').textContent = account.disabled ? 'Enable account' : 'Disable account';
  byId('account-verify-row').hidden = account.emailVerified;
  byId<HTMLInputElement>('account-password').value = '';
  byId<HTMLInputElement>('delete-confirm').checked = false;
}

async function search(): Promise<void> {
  const page = await api<{ users: AccountSummary[] }>(searchPath());
  const body = byId<HTMLTableElement>('accounts-table').tBodies[0]!;
  body.replaceChildren();
  for (const account of page.users) {
    const row = body.insertRow();
    cell(row, account.email);
    cell(row, account.role);
    cell(row, account.disabled ? 'disabled' : 'active');
    cell(row, verification(account));
    cell(row, time(account.createdAt));
    const manage = document.createElement('button');
    manage.type = 'button';
    manage.textContent = 'Manage';
    manage.setAttribute('aria-label', `Manage ${account.email}`);
    manage.addEventListener('click', () => showAccount(account));
    row.insertCell().append(manage);
  }
  if (page.users.length === 0) cell(body.insertRow(), 'No account matches.');
  status(`${page.users.length} account${page.users.length === 1 ? '' : 's'} shown.`);
}

/** One change to the shown account, then the list and the account read again. */
function change(done: string, action: (account: AccountSummary) => Promise<unknown>) {
  const account = shown;
  if (!account) return;
  action(account)
    .then(async (changed) => {
      if (changed) showAccount(changed as AccountSummary);
      else byId('account').hidden = true;
      await search();
      status(`${account.email}: ${done}.`);
    })
    .catch((error: unknown) => status(`${account.email} was not changed: ${String(error)}`));
}

const userPath = (account: AccountSummary) => `/admin/users/${encodeURIComponent(account.id)}`;

export function showAccounts(): Promise<void> {
  return search().catch((error: unknown) => status(`Could not search: ${String(error)}`));
}

export function wireAccounts(): void {
  byId<HTMLFormElement>('accounts-search').addEventListener('submit', (event) => {
    event.preventDefault();
    showAccounts();
  });
  byId<HTMLFormElement>('role-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const role = byId<HTMLSelectElement>('account-role').value;
    change(`role ${role}`, (account) =>
      api(userPath(account), { method: 'PATCH', body: JSON.stringify({ role }) }),
    );
  });
  byId('account-toggle').addEventListener('click', () => {
    const disabled = !shown?.disabled;
    change(disabled ? 'disabled' : 'enabled', (account) =>
      api(userPath(account), { method: 'PATCH', body: JSON.stringify({ disabled }) }),
    );
  });
  byId('account-verify').addEventListener('click', () => {
    change('email address marked verified', (account) =>
      api(userPath(account), { method: 'PATCH', body: JSON.stringify({ emailVerified: true }) }),
    );
  });
  byId<HTMLFormElement>('password-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const password = byId<HTMLInputElement>('account-password').value;
    change('password set, its sessions ended', async (account) => {
      await api(`${userPath(account)}/password`, {
        method: 'POST',
        body: JSON.stringify({ password }),
      });
      return account;
    });
  });
  byId<HTMLFormElement>('delete-form').addEventListener('submit', (event) => {
    event.preventDefault();
    change('deleted', (account) => api(userPath(account), { method: 'DELETE' }));
  });
}
