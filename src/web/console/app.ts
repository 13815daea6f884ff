/**
 * The operator console (employees): Overview, Customers, Webhooks,
 * Accounts, Audit and Backups, drawn from the
 * service's own JSON endpoints with the session cookie. Plots are uPlot,
 * bundled into this script; everything comes from this origin.
 */
import uPlot from 'uplot';
import { showAccounts, wireAccounts } from './accounts';
import { wireCustomers } from './customers';
import { api, byId, cell, type Json, time } from './dom';
import { showAudit, showBackups, wireRecords } from './records';
import { showWebhooks, wireWebhooks } from './webhooks';

/** Colours with at least 3:1 contrast on white (WCAG non-text contrast). */
const COLOURS = ['#1f5fa8', '#b3261e', '#1f7a4d', '#8a5100', '#5b3fa0', '#00695c', '#4f5663'];

interface Point {
  start: number;
  requests: number;
  errors: number;
  p99Ms: number | null;
}
interface RequestFigures {
  bucketMs: number;
  from: number;
  to: number;
  groups: { group: string; points: Point[] }[];
}

interface ServiceStatus {
  backends: { name: string; state: string }[];
  database: { sizeBytes: number | null; walSizeBytes: number | null };
  instances: { live: number; seen: string[]; seenMinutes: number };
}

const bytes = (size: number | null) =>
  size === null ? 'unknown' : `${(size / 1_048_576).toFixed(1)} MiB (${size} bytes)`;

/** Every bucket of the range, so that a quiet minute shows as 0 rather than a gap. */
function starts({ from, to, bucketMs }: { from: number; to: number; bucketMs: number }): number[] {
  const all: number[] = [];
  for (let t = from; t <= to; t += bucketMs) all.push(t);
  return all;
}

function plot(target: HTMLElement, series: uPlot.Series[], data: uPlot.AlignedData): void {
  target.replaceChildren();
  const width = Math.max(280, target.clientWidth || 600);
  new uPlot({ width, height: 220, series, legend: { show: true } }, data, target);
}

function requestPlot(target: HTMLElement, figures: RequestFigures): void {
  const xs = starts(figures);
  const series: uPlot.Series[] = [{}];
  const data: (number | null)[][] = [xs.map((t) => t / 1000)];
  figures.groups.forEach(({ group, points }, i) => {
    const byStart = new Map(points.map((point) => [point.start, point.requests]));
    series.push({ label: group, stroke: COLOURS[i % COLOURS.length]!, width: 2 });
    data.push(xs.map((t) => byStart.get(t) ?? 0));
  });
  plot(target, series, data as uPlot.AlignedData);
}

function latencyPlot(target: HTMLElement, figures: RequestFigures): void {
  const xs = starts(figures);
  const requests = new Map<number, number>();
  const errors = new Map<number, number>();
  const p99 = new Map<number, number>();
  for (const { points } of figures.groups) {
    for (const point of points) {
      requests.set(point.start, (requests.get(point.start) ?? 0) + point.requests);
      errors.set(point.start, (errors.get(point.start) ?? 0) + point.errors);
      if (point.p99Ms !== null)
        p99.set(point.start, Math.max(p99.get(point.start) ?? 0, point.p99Ms));
    }
  }
  plot(
    target,
    [
      {},
      { label: '5xx %', stroke: COLOURS[1]!, width: 2, scale: '%' },
      { label: 'p99 ms (worst group)', stroke: COLOURS[0]!, width: 2, scale: 'ms' },
    ],
    [
      xs.map((t) => t / 1000),
      xs.map((t) => {
        const total = requests.get(t) ?? 0;
        return total === 0 ? 0 : (100 * (errors.get(t) ?? 0)) / total;
      }),
      xs.map((t) => p99.get(t) ?? null),
    ] as uPlot.AlignedData,
  );
}

async function overview(): Promise<void> {
  const status = byId<HTMLParagraphElement>('overview-status');
  const [minutes, hours, health, service, jobs, backups] = await Promise.all([
    api<RequestFigures>('/admin/usage/requests?resolution=minute&hours=1'),
    api<RequestFigures>('/admin/usage/requests?resolution=hour&hours=24'),
    api<Json>('/health'),
    api<ServiceStatus>('/admin/status'),
    api<{
      jobs: {
        name: string;
        schedule: string;
        nextRunAt: string | null;
        lastRuns: { startedAt: string; outcome: string }[];
      }[];
    }>('/admin/jobs'),
    api<{ backups: { name: string; size: number; createdAt: string }[] }>('/admin/backups'),
  ]);
  requestPlot(byId('plot-requests'), minutes);
  latencyPlot(byId('plot-latency'), minutes);
  requestPlot(byId('plot-day'), hours);

  const facts = byId<HTMLDListElement>('service');
  facts.replaceChildren();
  const fact = (term: string, value: string) => {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value;
    facts.append(dt, dd);
  };
  fact('Health', String(health.status));
  fact('Backends', service.backends.map(({ name, state }) => `${name}: ${state}`).join(', '));
  fact('Database size', bytes(service.database.sizeBytes));
  if (service.database.walSizeBytes !== null)
    fact('WAL size', bytes(service.database.walSizeBytes));
  fact('Instances live', String(service.instances.live));
  fact(
    `Instances seen (last ${service.instances.seenMinutes} min)`,
    service.instances.seen.join(', ') || 'none',
  );
  const backup = jobs.jobs.find((job) => job.name === 'database-backup');
  fact(
    'Last backup',
    backups.backups[0]
      ? `${time(backups.backups[0].createdAt)} (${backups.backups[0].size} bytes)`
      : 'none',
  );
  fact('Next backup', time(backup?.nextRunAt));

  const body = byId<HTMLTableElement>('jobs').tBodies[0]!;
  body.replaceChildren();
  for (const job of jobs.jobs) {
    const row = body.insertRow();
    cell(row, job.name);
    cell(row, job.schedule);
    cell(row, time(job.nextRunAt));
    cell(row, time(job.lastRuns[0]?.startedAt));
    cell(row, job.lastRuns[0]?.outcome ?? '—');
  }
  status.textContent = `Updated ${time(new Date().toISOString())} UTC.`;
}

const TABS = ['overview', 'customers', 'webhooks', 'accounts', 'audit', 'backups'] as const;
/** What opening a page loads (Customers waits for a search). */
const LOADS: Partial<Record<(typeof TABS)[number], () => Promise<void>>> = {
  webhooks: showWebhooks,
  accounts: showAccounts,
  audit: showAudit,
  backups: showBackups,
};

function showTab(): void {
  const wanted = location.hash.slice(1);
  const tab = (TABS as readonly string[]).includes(wanted) ? wanted : 'overview';
  for (const name of TABS) byId(name).hidden = name !== tab;
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a[data-tab]')) {
    if (link.dataset.tab === tab) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (tab === 'overview') {
    overview().catch((error: unknown) => {
      byId('overview-status').textContent = `Could not load the overview: ${String(error)}`;
    });
  }
  LOADS[tab as (typeof TABS)[number]]?.();
}

wireCustomers();
wireWebhooks();
wireAccounts();
wireRecords();
window.addEventListener('hashchange', showTab);
showTab();
