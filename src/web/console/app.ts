/**
 * The operator console (employees): Overview, Customers, Webhooks, Mail,
 * Accounts, Audit and Backups, and the data it edits (properties and their
 * units, static pages, neighbourhoods, plans), drawn from the
 * service's own JSON endpoints with the session cookie. Plots are uPlot,
 * bundled into this script; everything comes from this origin.
 */
import uPlot from 'uplot';
import type { RequestFigures } from '@/usage/schemas';
import { distinctColours, yAxis } from '../plot';
import { showAccounts, wireAccounts } from './accounts';
import { wireCustomers } from './customers';
import { api, byId, cell, type Json, time } from './dom';
import { showMail, wireMail } from './mail';
import { showNeighbourhoods, showPlans, wireNeighbourhoods, wirePlans } from './places';
import { propertiesView } from './properties';
import { showAudit, showBackups, wireRecords } from './records';
import { showReplica, wireReplica } from './replica';
import { showPages, wirePages } from './static-pages';
import { showWebhooks, wireWebhooks } from './webhooks';

interface ServiceStatus {
  backends: { name: string; state: string }[];
  disk: {
    state: 'ok' | 'low' | 'refusing';
    thresholdBytes: number;
    volumes: { name: string; path: string; freeBytes: number | null; writable: boolean }[];
    refusedWrites: number;
    lastRefusal: { at: string; reason: string } | null;
    lastSkip: { job: string; at: string; reason: string } | null;
  };
  database: { sizeBytes: number | null; walSizeBytes: number | null };
  instances: { live: number; seen: string[]; seenMinutes: number };
}

const bytes = (size: number | null) =>
  size === null
    ? 'unknown'
    : size >= 1_073_741_824
      ? `${(size / 1_073_741_824).toFixed(1)} GiB (${size} bytes)`
      : `${(size / 1_048_576).toFixed(1)} MiB (${size} bytes)`;

/** Every bucket of the range, so that a quiet minute shows as 0 rather than a gap. */
function starts({ from, to, bucketMs }: { from: number; to: number; bucketMs: number }): number[] {
  const all: number[] = [];
  for (let t = from; t <= to; t += bucketMs) all.push(t);
  return all;
}

function plot(
  target: HTMLElement,
  series: uPlot.Series[],
  data: uPlot.AlignedData,
  axes: uPlot.Axis[] = [{}, yAxis()],
  scales: uPlot.Scales = {},
): void {
  target.replaceChildren();
  const width = Math.max(280, target.clientWidth || 600);
  new uPlot({ width, height: 220, series, axes, scales, legend: { show: true } }, data, target);
}

/** One colour per route group, the same in every plot of the page. */
function groupColours(...figures: RequestFigures[]): Map<string, string> {
  const groups = [...new Set(figures.flatMap(({ groups }) => groups.map(({ group }) => group)))];
  groups.sort();
  const colours = distinctColours(groups.length);
  return new Map(groups.map((group, i) => [group, colours[i]!]));
}

function requestPlot(
  target: HTMLElement,
  figures: RequestFigures,
  colours: Map<string, string>,
): void {
  const xs = starts(figures);
  const series: uPlot.Series[] = [{}];
  const data: (number | null)[][] = [xs.map((t) => t / 1000)];
  for (const { group, points } of figures.groups) {
    const byStart = new Map(points.map((point) => [point.start, point.requests]));
    series.push({ label: group, stroke: colours.get(group), width: 2 });
    data.push(xs.map((t) => byStart.get(t) ?? 0));
  }
  plot(target, series, data as uPlot.AlignedData);
}

/** From 0 to at least `least`, so that a quiet hour still has an axis to read. */
const fromZero =
  (least: number): uPlot.Range.Function =>
  (_plot, _min, max) => [0, Math.max(least, max)];

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
  const [latencyColour, errorColour] = distinctColours(2);
  plot(
    target,
    [
      {},
      { label: '5xx %', stroke: errorColour, width: 2, scale: '%' },
      { label: 'p99 ms (worst group)', stroke: latencyColour, width: 2, scale: 'ms' },
    ],
    [
      xs.map((t) => t / 1000),
      xs.map((t) => {
        const total = requests.get(t) ?? 0;
        return total === 0 ? 0 : (100 * (errors.get(t) ?? 0)) / total;
      }),
      xs.map((t) => p99.get(t) ?? null),
    ] as uPlot.AlignedData,
    [
      {},
      yAxis({ scale: '%', side: 3, label: 'error rate %', stroke: errorColour }),
      yAxis({
        scale: 'ms',
        side: 1,
        label: 'p99 ms',
        stroke: latencyColour,
        grid: { show: false },
      }),
    ],
    { '%': { range: fromZero(1) }, ms: { range: fromZero(1) } },
  );
}

async function overview(): Promise<void> {
  const status = byId<HTMLParagraphElement>('overview-status');
  const [minutes, hours, health, service, jobs, backups] = await Promise.all([
    api<RequestFigures>('/admin/usage/requests?resolution=minute&hours=1'),
    api<RequestFigures>('/admin/usage/requests?resolution=hour&hours=24'),
    // A 503 (a backend down, writes refused) is shown, not a failed page.
    fetch('/health', { headers: { accept: 'application/json' } }).then(
      (res) => res.json() as Promise<Json>,
    ),
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
  const colours = groupColours(minutes, hours);
  requestPlot(byId('plot-requests'), minutes, colours);
  latencyPlot(byId('plot-latency'), minutes);
  requestPlot(byId('plot-day'), hours, colours);

  const facts = byId<HTMLDListElement>('service');
  facts.replaceChildren();
  const fact = (term: string, value: string) => {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value;
    facts.append(dt, dd);
  };
  fact(
    'Health',
    typeof health.detail === 'string' ? `failing: ${health.detail}` : String(health.status),
  );
  const { disk } = service;
  const DISK_STATES = {
    ok: 'ok',
    low: `low: under ${bytes(disk.thresholdBytes)} free (DISK_FREE_THRESHOLD_MB)`,
    refusing: 'writes refused: storage full or read-only (answered 507)',
  };
  fact('Disk', DISK_STATES[disk.state]);
  for (const volume of disk.volumes) {
    const free = bytes(volume.freeBytes);
    fact(
      `Free on ${volume.name}`,
      `${volume.writable ? free : `read-only, ${free}`} in ${volume.path}`,
    );
  }
  if (disk.refusedWrites > 0)
    fact(
      'Writes refused',
      `${disk.refusedWrites}, last ${time(disk.lastRefusal?.at)} (${disk.lastRefusal?.reason})`,
    );
  if (disk.lastSkip)
    fact(
      'Skipped for disk space',
      `${disk.lastSkip.job} at ${time(disk.lastSkip.at)}: ${disk.lastSkip.reason}`,
    );
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

const TABS = [
  'overview',
  'properties',
  'customers',
  'webhooks',
  'mail',
  'accounts',
  'audit',
  'backups',
  'pages',
  'neighbourhoods',
  'plans',
] as const;
const properties = propertiesView(byId('properties'), { base: 'properties' });
/** What opening a page loads (Customers waits for a search). */
const LOADS: Partial<Record<(typeof TABS)[number], () => Promise<void>>> = {
  properties: properties.show,
  webhooks: showWebhooks,
  mail: showMail,
  accounts: showAccounts,
  audit: showAudit,
  backups: () => Promise.all([showBackups(), showReplica()]).then(() => undefined),
  pages: showPages,
  neighbourhoods: showNeighbourhoods,
  plans: showPlans,
};

function showTab(): void {
  // A tab's own place after a slash or a `?` (`#properties/<id>`, `#properties?type=flat`) is the tab's to read.
  const wanted = location.hash.slice(1).split(/[/?]/)[0] ?? '';
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

/** Ends this browser's session (as the account page's Sign out does), then goes to /account. */
function wireSignOut(): void {
  const button = byId<HTMLButtonElement>('sign-out');
  button.addEventListener('click', () => {
    button.disabled = true;
    api('/auth/sign-out', { method: 'POST' })
      .then(() => location.assign('/account'))
      .catch((error: unknown) => {
        button.disabled = false;
        byId('overview-status').textContent = `Could not sign out: ${String(error)}`;
      });
  });
}

wireSignOut();
wireCustomers();
wireWebhooks();
wireMail();
wireAccounts();
wireRecords();
wireReplica();
wirePages();
wireNeighbourhoods();
wirePlans();
window.addEventListener('hashchange', showTab);
showTab();
