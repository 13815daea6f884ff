import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { toolContext } from '@/audit/record';
import type { AuditLogStore } from '@/audit/store';
import type { ReplicaSettings } from '@/config';
import type { Logger } from '@/logger';
import { metricsAddress } from './config-file';

/** What /health and /metrics tell of the replication (docs/operations.md). */
export interface ReplicationStatus {
  /** The replica's URL, without a password. */
  replica: string;
  /** `degraded`: no sync for the maximum lag while writes wait, or no figures from Litestream. */
  state: 'ok' | 'degraded';
  /** The last poll that saw the replica advance or caught up (ms since the epoch); null: none yet. */
  lastSyncAt: number | null;
  /** Seconds since then, or since the server started when there was none yet. */
  lastSyncAgeSeconds: number;
  /** WAL bytes Litestream has copied aside but not shipped; null: unknown. */
  lagBytes: number | null;
  /**
   * How old the oldest write Litestream copied aside and has not shipped is,
   * to a poll (about a second): 0 when nothing waits; null: unknown.
   */
  lagSeconds: number | null;
  /** Litestream's failed syncs of the database since it started (`litestream_sync_error_count`). */
  syncErrors: number;
  /** The last problem seen, or null. */
  lastError: string | null;
}

/** The replica's URL as operators see it: no password, query or fragment. */
export function shownReplicaUrl(replicaUrl: string): string {
  const url = new URL(replicaUrl);
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.href;
}

/** One reading of Litestream's figures for one database. */
interface Reading {
  replicaIndex: number;
  replicaOffset: number;
  shadowIndex: number;
  /** Bytes Litestream has copied aside since it started (a counter). */
  copiedBytes: number;
  syncErrors: number;
}

const FIGURES = {
  replicaIndex: 'litestream_replica_wal_index',
  replicaOffset: 'litestream_replica_wal_offset',
  shadowIndex: 'litestream_shadow_wal_index',
  copiedBytes: 'litestream_total_wal_bytes',
  syncErrors: 'litestream_sync_error_count',
} as const satisfies Record<keyof Reading, string>;

const SAMPLE = /^([a-zA-Z_:][\w:]*)\{([^}]*)\}\s+(\S+)/;

/**
 * The figures of the database at `databasePath` in Litestream's text:
 * samples labelled with another `db` are another Litestream's (one on the
 * same port); undefined when a figure is missing.
 */
export function readingOf(text: string, databasePath: string): Reading | undefined {
  const dbLabel = `db=${JSON.stringify(databasePath)}`;
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match || !match[2]!.split(',').includes(dbLabel)) continue;
    values.set(match[1]!, (values.get(match[1]!) ?? 0) + Number(match[3]));
  }
  const reading: Partial<Reading> = {};
  for (const [key, name] of Object.entries(FIGURES) as [keyof Reading, string][]) {
    const value = values.get(name);
    if (value === undefined || Number.isNaN(value)) return undefined;
    reading[key] = value;
  }
  return reading as Reading;
}

/** Litestream's folder beside the database (`.<name>-litestream`): its copy of the WAL. */
export const litestreamFolder = (databasePath: string) =>
  join(dirname(databasePath), `.${basename(databasePath)}-litestream`);

const sizeOf = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/**
 * Bytes copied aside and not yet shipped: the rest of the shadow WAL file
 * the replica is in and every later one, from the files Litestream keeps in
 * its folder (`generations/<generation>/wal/<index, 8 hex digits>.wal`).
 * Its own `litestream_shadow_wal_size` adds up every file it still keeps,
 * shipped ones too, so it overstates the lag several times under steady
 * writes. Undefined before Litestream has made its first generation.
 */
function unshippedBytes(databasePath: string, reading: Reading): number | undefined {
  const folder = litestreamFolder(databasePath);
  let generation: string;
  try {
    generation = readFileSync(join(folder, 'generation'), 'utf8').trim();
  } catch {
    return undefined;
  }
  const walFolder = join(folder, 'generations', generation, 'wal');
  let bytes = 0;
  for (let index = reading.replicaIndex; index <= reading.shadowIndex; index++) {
    const size = sizeOf(join(walFolder, `${index.toString(16).padStart(8, '0')}.wal`));
    bytes += index === reading.replicaIndex ? Math.max(0, size - reading.replicaOffset) : size;
  }
  return bytes;
}

/** Polls remembered to date the oldest unshipped byte: an hour at one a second. */
const COPIED_HISTORY = 3600;

export interface ReplicationMonitorOptions {
  replica: ReplicaSettings;
  /** The database Litestream replicates, as its config names it (an absolute path). */
  databasePath: string;
  /** Litestream's metrics; by default on 127.0.0.1 at REPLICA_METRICS_PORT. */
  metricsUrl?: string;
  audit: AuditLogStore;
  logger: Logger;
  clock: () => number;
  /** A poll that takes longer gives up (ms). */
  timeoutMs?: number;
}

/**
 * Reads Litestream's Prometheus figures now and then and keeps what
 * operators need of them. A poll never runs inside a request: /health and
 * /metrics read the last state. Turning degraded and back each write one
 * audit event (`replication.degraded`, `replication.recovered`).
 */
export class ReplicationMonitor {
  readonly #options: ReplicationMonitorOptions;
  readonly #metricsUrl: string;
  readonly #replica: string;
  readonly #startedAt: number;
  #last: Reading | undefined;
  #lastSyncAt: number | null = null;
  #lagBytes: number | null = null;
  #lagSeconds: number | null = null;
  /** What Litestream had copied aside at each recent poll, oldest first. */
  readonly #copied: { at: number; bytes: number }[] = [];
  #syncErrors = 0;
  /** Why the last read of the figures failed; null once one succeeds. */
  #readError: string | null = null;
  #syncErrorNote: string | null = null;
  #degraded = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  #polling: Promise<void> | undefined;

  constructor(options: ReplicationMonitorOptions) {
    this.#options = options;
    this.#metricsUrl = options.metricsUrl ?? `http://${metricsAddress(options.replica)}/metrics`;
    this.#replica = shownReplicaUrl(options.replica.url);
    this.#startedAt = options.clock();
  }

  /** Polls now and every `intervalMs`, one poll at a time. */
  start(intervalMs: number): void {
    if (this.#timer) return;
    const tick = () => {
      this.#polling ??= this.poll().finally(() => {
        this.#polling = undefined;
      });
    };
    this.#timer = setInterval(tick, intervalMs);
    this.#timer.unref?.();
    tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#polling;
  }

  /** Reads the figures once and updates the state; never throws. */
  async poll(): Promise<void> {
    const now = this.#options.clock();
    const reading = await this.#read();
    if (typeof reading === 'string') {
      this.#readError = reading;
    } else {
      this.#readError = null;
      const lag = unshippedBytes(this.#options.databasePath, reading) ?? null;
      const previous = this.#last;
      const advanced =
        previous !== undefined &&
        (reading.replicaIndex !== previous.replicaIndex ||
          reading.replicaOffset !== previous.replicaOffset);
      if (advanced || lag === 0) this.#lastSyncAt = now;
      this.#last = reading;
      this.#lagBytes = lag;
      this.#lagSeconds = this.#dateLag(now, reading.copiedBytes, lag);
      if (reading.syncErrors > this.#syncErrors) {
        this.#syncErrorNote = `Litestream failed ${reading.syncErrors - this.#syncErrors} sync(s) of the database; its log says why`;
      }
      this.#syncErrors = reading.syncErrors;
    }
    await this.#judge(now, typeof reading === 'string');
  }

  status(): ReplicationStatus {
    const now = this.#options.clock();
    return {
      replica: this.#replica,
      state: this.#degraded ? 'degraded' : 'ok',
      lastSyncAt: this.#lastSyncAt,
      lastSyncAgeSeconds: Math.max(0, (now - (this.#lastSyncAt ?? this.#startedAt)) / 1000),
      lagBytes: this.#lagBytes,
      lagSeconds: this.#lagSeconds,
      syncErrors: this.#syncErrors,
      lastError: this.#lastError(),
    };
  }

  /**
   * The replica holds every byte Litestream had copied aside by the last
   * poll whose count is at most what it has shipped (the count now less the
   * lag): the lag is the time since that poll. A replica behind every poll
   * remembered is at least as old as the oldest.
   */
  #dateLag(now: number, copiedBytes: number, lag: number | null): number | null {
    const history = this.#copied;
    history.push({ at: now, bytes: copiedBytes });
    if (history.length > COPIED_HISTORY) history.shift();
    if (lag === null) return null;
    if (lag === 0) {
      history.splice(0, history.length - 1);
      return 0;
    }
    const shipped = copiedBytes - lag;
    let held = -1;
    while (held + 1 < history.length && history[held + 1]!.bytes <= shipped) held++;
    // Polls before the one the replica holds can no longer date anything.
    if (held > 0) history.splice(0, held);
    return Math.max(0, (now - history[0]!.at) / 1000);
  }

  /** A failed read while it lasts, else the last sync failures Litestream counted. */
  #lastError(): string | null {
    return this.#readError ?? this.#syncErrorNote;
  }

  async #read(): Promise<Reading | string> {
    const { databasePath, timeoutMs = 2000 } = this.#options;
    try {
      const response = await fetch(this.#metricsUrl, { signal: AbortSignal.timeout(timeoutMs) });
      if (!response.ok) return `Litestream's metrics answered ${response.status}`;
      return (
        readingOf(await response.text(), databasePath) ??
        `Litestream's metrics at ${this.#metricsUrl} show no replica of ${databasePath} (another process on REPLICA_METRICS_PORT?)`
      );
    } catch (error) {
      return `Litestream's metrics at ${this.#metricsUrl} could not be read: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /**
   * Degraded: no sync for the maximum lag while writes wait, or no figures
   * at all for as long (Litestream cannot vouch for the replica).
   */
  async #judge(now: number, unread: boolean): Promise<void> {
    const sinceSync = now - (this.#lastSyncAt ?? this.#startedAt);
    const waiting = unread || (this.#lagBytes ?? 0) > 0;
    const degraded = waiting && sinceSync >= this.#options.replica.maxLagMs;
    if (degraded === this.#degraded) return;
    this.#degraded = degraded;
    const { audit, logger } = this.#options;
    const details = {
      lastSyncAt: this.#lastSyncAt === null ? null : new Date(this.#lastSyncAt).toISOString(),
      lagBytes: this.#lagBytes,
      ...(degraded ? { lastError: this.#lastError() } : {}),
    };
    (degraded ? logger.warn : logger.info).call(
      logger,
      degraded ? 'replication degraded' : 'replication recovered',
      { replica: this.#replica, ...details },
    );
    try {
      await audit.record(toolContext(now), {
        action: degraded ? 'replication.degraded' : 'replication.recovered',
        target: this.#replica,
        details,
      });
    } catch (error) {
      logger.error('replication event not recorded', { error: String(error) });
    }
  }
}
