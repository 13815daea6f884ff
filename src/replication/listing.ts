import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ReplicaSettings } from '@/config';
import { litestreamConfigPath, writeLitestreamConfig } from './config-file';
import { litestreamErrorOf, parseHistory, type ReplicaGeneration } from './history';
import { findLitestream, LITESTREAM_MISSING } from './launch';

/** The replica's restore points as last listed, or why they could not be. */
export type ReplicaHistory = { listedAt: number } & (
  | { generations: ReplicaGeneration[] }
  | { problem: string }
);

export interface ReplicaListingOptions {
  databasePath: string;
  replica: ReplicaSettings;
  clock: () => number;
  /** A listing younger than this is answered as it is (ms). */
  maxAgeMs?: number;
  /** Each Litestream command is killed past this (ms). */
  timeoutMs?: number;
  findBinary?: () => string | undefined;
}

interface Output {
  stdout: string;
  stderr: string;
  code: number;
  timedOut: boolean;
}

async function runBounded(args: string[], timeoutMs: number): Promise<Output> {
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill('SIGKILL');
  }, timeoutMs);
  try {
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { stdout, stderr, code, timedOut };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks Litestream for the replica's generations and snapshots (two
 * commands, each bounded by `timeoutMs`) and keeps the answer for
 * `maxAgeMs`. One listing runs at a time; an older answer is given at once
 * while a new one is taken, so a request waits for Litestream only the first
 * time. A replica out of reach (a NAS down, wrong keys) is a problem, never
 * a throw.
 */
export class ReplicaListing {
  readonly #options: ReplicaListingOptions;
  #last: ReplicaHistory | undefined;
  #running: Promise<ReplicaHistory> | undefined;

  constructor(options: ReplicaListingOptions) {
    this.#options = options;
  }

  /** The last listing if fresh; else a new one, or the last one while the new one runs. */
  async read(): Promise<ReplicaHistory> {
    const { clock, maxAgeMs = 15_000 } = this.#options;
    const last = this.#last;
    if (last && clock() - last.listedAt < maxAgeMs) return last;
    this.#running ??= this.#list().then((history) => {
      this.#last = history;
      this.#running = undefined;
      return history;
    });
    return last ?? this.#running;
  }

  /** Waits for a listing under way, if any (tests, shutdown). */
  async settled(): Promise<void> {
    await this.#running;
  }

  async #list(): Promise<ReplicaHistory> {
    const { replica, clock, timeoutMs = 10_000, findBinary = findLitestream } = this.#options;
    const litestream = findBinary();
    if (!litestream) return { listedAt: clock(), problem: LITESTREAM_MISSING };
    const db = resolve(this.#options.databasePath);
    // Written at start by the launcher; written here when this process started otherwise.
    const configPath = litestreamConfigPath(db);
    if (!existsSync(configPath)) writeLitestreamConfig(db, replica);
    const command = (name: string) => [
      litestream,
      name,
      '-config',
      configPath,
      '-no-expand-env',
      db,
    ];
    const [generations, snapshots] = await Promise.all([
      runBounded(command('generations'), timeoutMs),
      runBounded(command('snapshots'), timeoutMs),
    ]);
    const listedAt = clock();
    if (generations.timedOut || snapshots.timedOut) {
      return {
        listedAt,
        problem: `Litestream did not list the replica within ${timeoutMs / 1000} s`,
      };
    }
    // Litestream 0.3.13 logs to stdout, between the table's lines.
    const said =
      litestreamErrorOf(`${generations.stdout}\n${generations.stderr}`) ??
      litestreamErrorOf(`${snapshots.stdout}\n${snapshots.stderr}`) ??
      (generations.code !== 0 || snapshots.code !== 0
        ? `Litestream exited with code ${generations.code || snapshots.code}`
        : undefined);
    if (said) return { listedAt, problem: `Litestream could not list the replica: ${said}` };
    const history = parseHistory(generations.stdout, snapshots.stdout);
    if (!history) {
      return {
        listedAt,
        problem: 'Litestream listed the replica in a form this version cannot read',
      };
    }
    return { listedAt, generations: history };
  }
}
