import { toolContext } from '@/audit/record';
import type { AuditLogStore } from '@/audit/store';
import type { AuditAction } from '@/db/sqlite/schema';
import type { StorageFailure } from '@/db/storage-failure';
import type { Logger } from '@/logger';
import { readVolume, type Volume, type VolumeReading } from './free-space';

/**
 * `ok`; `low`: a watched file system has less free space than the threshold
 * (or the backups' or replica's turned read-only); `refusing`: the database
 * refuses writes (a write failed for want of space, or its file system is
 * read-only or has no byte left).
 */
export type DiskState = 'ok' | 'low' | 'refusing';

/** What /health, /metrics and the console show of the disks (docs/operations.md). */
export interface DiskStatus {
  state: DiskState;
  thresholdBytes: number;
  volumes: VolumeReading[];
  /** Writes answered 507 since the server started. */
  refusedWrites: number;
  /** The last write refused: when (ms since the epoch) and why; null: none since the start. */
  lastRefusal: { at: number; reason: StorageFailure } | null;
  /** The last write a job of the service skipped to keep the disk free; null: none since the start. */
  lastSkip: { job: string; at: number; reason: string } | null;
}

/** Whether a job may write `bytes` on a volume and leave the threshold free. */
export type Room = { room: true } | { room: false; freeBytes: number; reason: string };

export interface DiskMonitorOptions {
  volumes: readonly Volume[];
  thresholdBytes: number;
  audit: AuditLogStore;
  logger: Logger;
  clock: () => number;
  /**
   * Without a local database volume (PostgreSQL), how long a refused write
   * keeps the state `refusing`: no reading here can say space came back.
   */
  refusalHoldMs?: number;
  /**
   * Run at each reading while space is low or writes are refused: gives
   * back what the service itself holds (the SQLite WAL, truncated after a
   * checkpoint). Never throws.
   */
  whenLow?: () => void;
}

/**
 * Free space that must come back, beyond what was free at a refused write,
 * before writes count as possible again: sixteen pages, room for a few
 * commits; less would let a rolled-back write's own freed bytes count.
 */
const RECOVERY_MARGIN_BYTES = 64 * 1024;

interface Refusal {
  at: number;
  reason: StorageFailure;
  /** Free bytes of the database's file system when the write was refused (null: not local). */
  freeBytes: number | null;
}

/**
 * Reads the free space of the database's, the backups' and a local
 * replica's file systems now and then (never in a request: the routes read
 * the last reading) and hears of every write a database refused for want of
 * storage. Each change of state logs one line and writes one audit event
 * (`disk.low`, `disk.full`, `disk.recovered`), however many requests meet it.
 */
export class DiskMonitor {
  readonly #options: DiskMonitorOptions;
  #readings: VolumeReading[] = [];
  #refusal: Refusal | undefined;
  #lastRefusal: Refusal | undefined;
  #refusedWrites = 0;
  #lastSkip: DiskStatus['lastSkip'] = null;
  #state: DiskState = 'ok';
  #timer: ReturnType<typeof setInterval> | undefined;
  #recording: Promise<void> = Promise.resolve();

  constructor(options: DiskMonitorOptions) {
    this.#options = options;
    this.#readings = options.volumes.map((volume) => readVolume(volume));
    this.#state = this.#judge();
  }

  /** Reads every `intervalMs`; the first reading was taken when the monitor was built. */
  start(intervalMs: number): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.read(), intervalMs);
    this.#timer.unref?.();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#recording;
  }

  /** Reads every volume now and updates the state; never throws. */
  read(): void {
    const refusal = this.#refusal;
    // While writes are refused as read-only, only a write tells when the file system takes them again.
    const probe = refusal?.reason === 'read-only';
    this.#readings = this.#options.volumes.map((v) =>
      readVolume(v, probe && v.name === 'database'),
    );
    if (refusal) {
      const database = this.#volume('database');
      const roomAgain = (free: number) =>
        refusal.reason === 'read-only' ||
        free >= this.#options.thresholdBytes ||
        free >= (refusal.freeBytes ?? 0) + RECOVERY_MARGIN_BYTES;
      const recovered = database
        ? database.writable && database.freeBytes !== null && roomAgain(database.freeBytes)
        : this.#options.clock() - refusal.at >= (this.#options.refusalHoldMs ?? 30_000);
      if (recovered) this.#refusal = undefined;
    }
    this.#change(this.#judge());
    // What it gives back shows at the next reading.
    if (this.#state !== 'ok') this.#options.whenLow?.();
  }

  /**
   * A database refused a write for want of storage (the transport calls it
   * on every 507). Answers the reason as the disk shows it: a write error
   * on a file system that only reads is `read-only`, whatever the code.
   */
  refused(failure: StorageFailure): StorageFailure {
    this.#refusedWrites++;
    const at = this.#options.clock();
    if (this.#refusal) {
      this.#refusal.at = at;
      this.#lastRefusal = this.#refusal;
      return this.#refusal.reason;
    }
    // The first refusal reads the disk again: the figure to recover from, and the reason.
    const watched = this.#options.volumes.find((v) => v.name === 'database');
    const database = watched && readVolume(watched, true);
    if (database)
      this.#readings = this.#readings.map((r) => (r.name === 'database' ? database : r));
    const reason = database && !database.writable ? 'read-only' : failure;
    this.#refusal = { at, reason, freeBytes: database?.freeBytes ?? null };
    this.#lastRefusal = this.#refusal;
    this.#change(this.#judge());
    return reason;
  }

  /** Reads `name`'s volume now: whether `bytes` more would still leave the threshold free. */
  roomFor(name: Volume['name'], bytes: number): Room {
    const volume = this.#options.volumes.find((v) => v.name === name);
    if (!volume) return { room: true };
    const reading = readVolume(volume, true);
    if (!reading.writable)
      return { room: false, freeBytes: reading.freeBytes ?? 0, reason: 'read-only' };
    if (reading.freeBytes === null) return { room: true };
    const left = reading.freeBytes - bytes;
    return left >= this.#options.thresholdBytes
      ? { room: true }
      : {
          room: false,
          freeBytes: reading.freeBytes,
          reason: `${bytes} bytes would leave ${Math.max(0, left)} free, under the threshold of ${this.#options.thresholdBytes}`,
        };
  }

  /**
   * A job skipped its write to keep the threshold free: one warning and a
   * `backup.skipped` audit event per skip (a job runs at most hourly).
   */
  skipped(job: string, reason: string): void {
    const { logger, clock } = this.#options;
    const at = clock();
    this.#lastSkip = { job, at, reason };
    logger.warn('job skipped: disk space low', { job, reason });
    this.#record('backup.skipped', { job, reason }, at);
  }

  status(): DiskStatus {
    const last = this.#lastRefusal;
    return {
      state: this.#state,
      thresholdBytes: this.#options.thresholdBytes,
      volumes: this.#readings,
      refusedWrites: this.#refusedWrites,
      lastRefusal: last ? { at: last.at, reason: last.reason } : null,
      lastSkip: this.#lastSkip,
    };
  }

  #volume(name: Volume['name']): VolumeReading | undefined {
    return this.#readings.find((r) => r.name === name);
  }

  #judge(): DiskState {
    const database = this.#volume('database');
    if (this.#refusal || database?.writable === false || database?.freeBytes === 0)
      return 'refusing';
    const { thresholdBytes } = this.#options;
    const low = this.#readings.some(
      (r) => !r.writable || (r.freeBytes !== null && r.freeBytes < thresholdBytes),
    );
    return low ? 'low' : 'ok';
  }

  /** Logs and records a change of state once. */
  #change(state: DiskState): void {
    const previous = this.#state;
    if (state === previous) return;
    this.#state = state;
    const { logger, clock, thresholdBytes } = this.#options;
    const volumes = this.#readings.map(({ name, path, freeBytes, writable }) => ({
      ...{ name, path, freeBytes, writable },
    }));
    const details = { state, thresholdBytes, volumes, reason: this.#refusal?.reason ?? null };
    if (state === 'refusing') logger.warn('writes refused: storage full or read-only', details);
    else if (state === 'low' && previous === 'ok') logger.warn('disk space low', details);
    else logger.info(state === 'ok' ? 'disk space recovered' : 'writes accepted again', details);
    const action =
      state === 'refusing' ? 'disk.full' : state === 'low' ? 'disk.low' : 'disk.recovered';
    this.#record(action, details, clock());
  }

  /** Best effort, one at a time: on a full disk the audit log may not take the event either. */
  #record(action: AuditAction, details: Record<string, unknown>, at: number): void {
    const { logger, audit } = this.#options;
    this.#recording = this.#recording.then(async () => {
      try {
        await audit.record(toolContext(at), { action, target: 'disk', details });
      } catch (error) {
        logger.error('disk event not recorded', { action, error: String(error) });
      }
    });
  }
}
