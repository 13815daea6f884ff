/**
 * The Backups page's replica section (GET /admin/replication): the
 * replica's state, its generations with the span each can restore and
 * their snapshots, and the restore command for an instant chosen in it.
 */
import { api, byId, cell } from './dom';

interface ReplicaGeneration {
  id: string;
  start: string;
  end: string;
  snapshots: { index: number; size: number; createdAt: string }[];
}

interface ReplicationHealth {
  state: 'ok' | 'degraded';
  lastSyncAt: string | null;
  lastSyncAgeSeconds: number;
  lagBytes: number | null;
  syncErrors: number;
  lastError: string | null;
}

type Overview =
  | { enabled: false; docs: string }
  | {
      enabled: true;
      replica: string;
      status: ReplicationHealth | null;
      history:
        | { listed: true; listedAt: string; generations: ReplicaGeneration[] }
        | { listed: false; listedAt: string; problem: string };
      restoreCommand: string;
    };

/** An instant to the second, as Litestream takes it: `2026-11-22 03:00:00 UTC`. */
const instant = (iso: string) => `${iso.replace('T', ' ').replace(/(\.\d+)?Z$/, '')} UTC`;
/** The `--timestamp` form: RFC 3339 in UTC, whole seconds. */
const timestampOf = (date: Date) => date.toISOString().replace(/\.\d+Z$/, 'Z');

let generations: ReplicaGeneration[] = [];
let restoreCommand = '';

function facts(list: [term: string, value: string][]): void {
  const target = byId<HTMLDListElement>('replica-facts');
  target.replaceChildren();
  for (const [term, value] of list) {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value;
    target.append(dt, dd);
  }
}

function statusFacts(status: ReplicationHealth | null): [string, string][] {
  if (!status) return [['Status', 'not read: this server does not run under Litestream']];
  return [
    ['Status', status.state],
    [
      'Last successful sync',
      status.lastSyncAt
        ? `${instant(status.lastSyncAt)} (${status.lastSyncAgeSeconds} s ago)`
        : `none since the server started (${status.lastSyncAgeSeconds} s ago)`,
    ],
    ['Lag', status.lagBytes === null ? 'unknown' : `${status.lagBytes} bytes waiting to ship`],
    ['Failed syncs', String(status.syncErrors)],
    ['Last error', status.lastError ?? 'none'],
  ];
}

function drawGenerations(): void {
  const body = byId<HTMLTableElement>('replica-table').tBodies[0]!;
  body.replaceChildren();
  for (const generation of generations) {
    const row = body.insertRow();
    cell(row, generation.id);
    cell(row, instant(generation.start));
    cell(row, instant(generation.end));
    cell(
      row,
      generation.snapshots
        .map(({ createdAt, size }) => `${instant(createdAt)} (${size} bytes)`)
        .join('; ') || 'none',
    );
    const pick = document.createElement('button');
    pick.type = 'button';
    pick.textContent = 'Use its latest';
    pick.setAttribute('aria-label', `Use its latest (generation ${generation.id})`);
    pick.addEventListener('click', () => {
      byId<HTMLInputElement>('restore-at').value = timestampOf(new Date(generation.end));
      showCommand();
    });
    row.insertCell().append(pick);
  }
  if (generations.length === 0) cell(body.insertRow(), 'No generation yet.');
}

/** The command for the instant in the form, when a generation holds it. */
function showCommand(): void {
  const text = byId<HTMLInputElement>('restore-at').value.trim();
  const command = byId('restore-command');
  const note = byId('restore-note');
  const at = new Date(text);
  const held = generations.some(
    ({ start, end }) => Date.parse(start) <= at.getTime() && at.getTime() <= Date.parse(end),
  );
  if (Number.isNaN(at.getTime()) || !held) {
    command.textContent = '';
    note.textContent = Number.isNaN(at.getTime())
      ? 'Write the instant as 2026-11-22T03:00:00Z.'
      : "That instant is outside every generation's span: choose one between a generation's From and To.";
    return;
  }
  command.textContent = restoreCommand.replace('<T>', timestampOf(at));
  note.textContent = 'Stop the server first, then run on its host:';
}

export async function showReplica(): Promise<void> {
  const status = byId('replica-status');
  const present = byId('replica-present');
  const overview = await api<Overview>('/admin/replication').catch((error: unknown) => {
    status.textContent = `Could not read the replication: ${String(error)}`;
    return undefined;
  });
  if (!overview) return;
  if (!overview.enabled) {
    present.hidden = true;
    status.textContent = `Replication is off: REPLICA_URL is not set, so only the backups above protect the database. To stream every change to another disk, host or bucket, see ${overview.docs}.`;
    return;
  }
  present.hidden = false;
  facts([['Replica', overview.replica], ...statusFacts(overview.status)]);
  restoreCommand = overview.restoreCommand;
  const { history } = overview;
  generations = history.listed ? history.generations : [];
  byId('replica-listing').hidden = !history.listed;
  status.textContent = history.listed
    ? `Restore points as Litestream listed them at ${instant(history.listedAt)}.`
    : `Could not list the replica's generations (at ${instant(history.listedAt)}): ${history.problem}`;
  drawGenerations();
  const newest = generations[0];
  if (newest && !byId<HTMLInputElement>('restore-at').value) {
    byId<HTMLInputElement>('restore-at').value = timestampOf(new Date(newest.end));
  }
  showCommand();
}

export function wireReplica(): void {
  byId<HTMLFormElement>('restore-form').addEventListener('submit', (event) => {
    event.preventDefault();
    showCommand();
  });
}
