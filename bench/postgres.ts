/**
 * What `bun run bench -- --backend postgres` needs besides the SQLite run:
 * a fresh database to copy the seeded file into, and the work that moves
 * out of the measured servers (PostgreSQL's processes, Redis's commands),
 * read before and after each endpoint.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { RedisClient, SQL } from 'bun';

/** The database a postgres run copies into unless `--postgres-url` names another. */
export const DEFAULT_BENCH_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/listings_bench';

/**
 * Drops the database `url` names (ending whatever is still connected to
 * it, such as the servers of an interrupted run) and creates it empty,
 * through the server's `postgres` database, with the planner setting
 * docs/postgresql.md recommends for SSDs (`random_page_cost = 1.1`).
 */
export async function recreateDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) {
    throw new Error(`bench: --postgres-url must name a plain database (got "${name}")`);
  }
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new SQL(admin.toString(), { max: 1, connectionTimeout: 5 });
  try {
    await client.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.unsafe(`CREATE DATABASE ${name}`);
    await client.unsafe(`ALTER DATABASE ${name} SET random_page_cost = 1.1`);
  } finally {
    await client.close();
  }
}

/** The server's own processes: postmaster, checkpointer, writers, launchers (shared by every database). */
const SHARED_PROCESS =
  /^(\S*\/postgres\s|postgres: .*(checkpointer|background writer|walwriter|launcher))/;

/**
 * CPU seconds (user + system) the PostgreSQL server has used for the
 * database `url` names: the backends of that database (the servers' pools
 * keep their connections, so none ends during a measurement) and the
 * server's shared processes, told apart by their process titles. Other
 * databases' backends (other test runs on the same server) are left out.
 * PostgreSQL runs unpinned, so this is the work that moved there, whatever
 * core did it.
 */
export function postgresCpuSeconds(url: string, clockTicks: number): number {
  const database = decodeURIComponent(new URL(url).pathname.slice(1));
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    let title: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue; // ended since the listing
    }
    if (!title.includes(` ${database} `) && !SHARED_PROCESS.test(title)) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / clockTicks;
}

/**
 * Pins the backends of the database `url` names to `cpu` (`taskset -p`),
 * told apart by their process titles as `postgresCpuSeconds` does; the
 * server's shared processes (WAL writer, checkpointer) stay unpinned. A
 * backend started later (a pool connection opened after this) is not pinned.
 */
export function pinDatabaseBackends(url: string, cpu: number): number {
  const database = decodeURIComponent(new URL(url).pathname.slice(1));
  let pinned = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (!title.startsWith('postgres: ') || !title.includes(` ${database} `)) continue;
    } catch {
      continue; // ended since the listing
    }
    const set = Bun.spawnSync(['taskset', '-p', '-c', String(cpu), entry], { stdout: 'ignore' });
    if (set.exitCode === 0) pinned++;
  }
  return pinned;
}

/**
 * A count of the commands the Redis at `url` has processed, all clients
 * together (Redis 7.0 keeps no count per client): with nothing else using
 * it, the round trips the instances made. The counter's own INFO
 * commands (counted once they finish) are left out.
 */
export function redisCommandCounter(url: string) {
  const client = new RedisClient(url, { connectionTimeout: 2_000 });
  let own = 0;
  return {
    async read(): Promise<number> {
      const info = String(await client.send('INFO', ['stats']));
      const total = Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0);
      return total - own++;
    },
    close: () => client.close(),
  };
}
