/** The console's Customers page: a customer by id or email, its plan windows, calls and plan. */
import { type CustomerUsage, drawCallsPlot, fillWindows } from '../usage-view';
import { api, byId } from './dom';

/** The customer shown, whose plan the form changes. */
let shownCustomer: string | undefined;

async function showCustomer(sub: string): Promise<void> {
  const [usage, plans] = await Promise.all([
    api<CustomerUsage>(`/admin/usage/customers/${encodeURIComponent(sub)}`),
    api<{ data: { id: number; name: string }[] }>('/api/v1/admin/plans'),
  ]);
  shownCustomer = sub;
  byId('customer').hidden = false;
  byId('customer-title').textContent = `Customer ${sub}`;
  byId('customer-plan').textContent = usage.rate_limits.plan.name;
  const select = byId<HTMLSelectElement>('plan-select');
  select.replaceChildren();
  for (const plan of [{ id: 0, name: 'Standard' }, ...plans.data]) {
    const option = new Option(plan.name, String(plan.id));
    option.selected =
      plan.id === usage.rate_limits.plan.id || (plan.id === 0 && usage.rate_limits.plan.id === 1);
    select.add(option);
  }
  fillWindows(byId<HTMLTableElement>('windows'), usage);
  drawCallsPlot(byId('plot-calls'), usage, 220);
}

async function lookUp(query: string): Promise<void> {
  const status = byId<HTMLParagraphElement>('customer-status');
  let sub = query;
  if (query.includes('@')) {
    const page = await api<{ users: { id: string; email: string; role: string }[] }>(
      `/admin/users?email=${encodeURIComponent(query)}`,
    );
    const found =
      page.users.find((user) => user.email.toLowerCase() === query.toLowerCase()) ?? page.users[0];
    if (!found) {
      status.textContent = `No account with the email ${query}.`;
      byId('customer').hidden = true;
      return;
    }
    sub = found.id;
  }
  await showCustomer(sub);
  status.textContent = `Showing ${sub}.`;
}

export function wireCustomers(): void {
  byId<HTMLFormElement>('customer-search').addEventListener('submit', (event) => {
    event.preventDefault();
    const query = byId<HTMLInputElement>('customer-query').value.trim();
    lookUp(query).catch((error: unknown) => {
      byId('customer-status').textContent = `Could not look up ${query}: ${String(error)}`;
    });
  });
  byId<HTMLFormElement>('plan-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const sub = shownCustomer;
    if (!sub) return;
    const id = Number(byId<HTMLSelectElement>('plan-select').value);
    api(`/api/v1/admin/customers/${encodeURIComponent(sub)}/plan`, {
      method: 'PUT',
      body: JSON.stringify({ planId: id === 0 ? null : id }),
    })
      .then(() => showCustomer(sub))
      .then(() => {
        byId('customer-status').textContent =
          `Plan of ${sub} changed to ${byId('customer-plan').textContent}.`;
      })
      .catch((error: unknown) => {
        byId('customer-status').textContent = `The plan was not changed: ${String(error)}`;
      });
  });
}
