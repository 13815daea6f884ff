import type { SQL } from 'bun';
import { lookUpPeersOn } from '@/api/request/peer';
import { createService } from '@/app';
import { TOKEN_CUTOFF_RELOAD_MS } from '@/auth/revocation';
import { UpgradeError, upgradeDatabase } from '@/backups';
import { type Config, parseDatabaseSettings } from '@/config';
import { serviceMigrations } from '@/db/migrations';
import { openPostgres, whereOf } from '@/db/pg/connection';
import { preparePostgres } from '@/db/pg/migrate';
import { leaveCheckpointsToLitestream, startCheckpointer } from '@/db/sqlite/checkpointer';
import { type Db, isPlainFile, migrationsFolder, openDatabase } from '@/db/sqlite/client';
import { flushGroupCommit } from '@/db/sqlite/group-commit';
import { type AppDeps, buildDeps } from '@/deps';
import { releaseWaits } from '@/events/signal';
import { embedded } from '@/kernel/embedded';
import { MAX_BODY_BYTES } from '@/kernel/limits';
import { createLogger } from '@/logger';
import { RedisConnection } from '@/redis/connection';
import { metricsAddress } from '@/replication';
import {
  databaseFolderFailureOf,
  failStartup,
  listenFailureOf,
  StartupError,
  type StartupFailure,
  step,
} from '@/startup/failure';
import { mailWarningOf } from '@/startup/mail-notice';
import { firstAccountHint } from '@/startup/operator-commands';
import { kickDeliveriesOnEvents } from '@/workers/webhook-kick';

/**
 * How often the server reads Litestream's figures (a poll gives up after
 * 2 s): often enough that the shipped position is seen moving under a
 * steady load; one loopback request of ~2 KB.
 */
const REPLICATION_POLL_MS = 1000;

/** How often the free space of the watched file systems is read: two system calls each. */
const DISK_READ_MS = 2000;

/**
 * Everything up to listening, each step's errors named by the failure they
 * stand for (src/startup/failure.ts); answers what `shutdown` stops.
 */
async function start(config: Config, underLitestream: boolean) {
  const redisSettings = config.redis;
  if (redisSettings) {
    // Without the shared state the instance would count and lead on its own: refuse to start.
    const problem = await RedisConnection.check(redisSettings);
    if (problem) throw new StartupError({ kind: 'redis', problem });
  }
  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  const { databaseUrl } = parseDatabaseSettings(process.env);

  /** SQLite at DATABASE_PATH: pending migrations after a backup when there is data. */
  async function openSqlite() {
    const db = await step(
      () => openDatabase(config.databasePath, { pageCacheKib: config.sqlitePageCacheKib }),
      (error) => databaseFolderFailureOf(error, config.databasePath),
    );
    // Pending migrations: a backup first when there is data, then all of them in one transaction.
    const upgrade = await step(
      () =>
        upgradeDatabase(db.$client, serviceMigrations(migrationsFolder), {
          backupDir: config.backups.dir,
          now: Date.now(),
          commandPrefix: config.commandPrefix,
        }),
      (error): StartupFailure =>
        error instanceof UpgradeError
          ? { kind: 'database-upgrade', message: error.message }
          : { kind: 'unexpected', error },
    );
    if (upgrade.applied.length > 0) logger.info('migrated', { ...upgrade });
    return db;
  }

  /**
   * PostgreSQL at DATABASE_URL: a failure when it cannot be reached;
   * pending migrations under an advisory lock, so instances that start
   * together migrate once.
   */
  async function openPostgresDatabase(url: string) {
    const prepared = await preparePostgres(url);
    if ('problem' in prepared) {
      throw new StartupError({ kind: 'postgresql', problem: prepared.problem });
    }
    if (prepared.applied.length > 0) logger.info('migrated', { applied: prepared.applied });
    return openPostgres(url, { max: config.postgresPoolSize });
  }

  const db = databaseUrl === undefined ? await openSqlite() : undefined;
  const postgres = databaseUrl === undefined ? undefined : await openPostgresDatabase(databaseUrl);
  // WAL checkpoints on a thread of their own, not in the COMMIT of a request
  // (src/db/sqlite/checkpointer.ts); under Litestream, by Litestream.
  if (db && config.replica) leaveCheckpointsToLitestream(db.$client);
  const checkpointer =
    db && isPlainFile(config.databasePath) && !config.replica
      ? await startCheckpointer(db.$client, config.databasePath)
      : undefined;
  // Under Litestream, its metrics tell /health and /metrics how the replica keeps up.
  const replicationMetricsUrl =
    config.replica && underLitestream
      ? `http://${metricsAddress(config.replica)}/metrics`
      : undefined;
  const deps = buildDeps({ config, db, postgres, logger, replicationMetricsUrl });
  deps.replication?.start(REPLICATION_POLL_MS);
  deps.disk.start(DISK_READ_MS);
  // Before the first request: a revoked token must not pass while they load.
  await deps.tokenCutoffs.load();
  // Revocations by a command-line tool (which announces none) reach this instance on a reload.
  deps.tokenCutoffs.start(TOKEN_CUTOFF_RELOAD_MS);
  const service = createService(deps);
  if (config.workers) {
    deps.jobs?.start();
    // New events go out to webhooks at once, not at the delivery job's next tick.
    kickDeliveriesOnEvents(deps);
  }

  const server = await step(
    () =>
      Bun.serve({
        port: config.port,
        hostname: config.host,
        // Bodies are checked at 1 MiB by the JSON parser (413 problem body); this is the backstop.
        maxRequestBodySize: MAX_BODY_BYTES * 2,
        tls: config.tls
          ? { cert: Bun.file(config.tls.certPath), key: Bun.file(config.tls.keyPath) }
          : undefined,
        // Bounds a connection that sends nothing (slowloris); long polls ask for more (allowSilence).
        idleTimeout: config.idleTimeoutSeconds,
        fetch: service.fetch,
      }),
    (error) => listenFailureOf(error, config),
  );
  lookUpPeersOn(server);
  logger.info('listening', {
    url: `${config.tls ? 'https' : 'http'}://${config.host}:${server.port}`,
    database: databaseUrl === undefined ? config.databasePath : whereOf(databaseUrl),
    // The process a stop signal goes to, whatever started it (npm, a shell, systemd).
    pid: process.pid,
  });
  const mailWarning = mailWarningOf(config);
  if (mailWarning) logger.warn(mailWarning);
  if (!(await deps.stores.accounts.hasAnyUser())) {
    // The single binary carries the migrations and no operator command.
    const commands = embedded.migrations
      ? ({ kind: 'none' } as const)
      : ({ kind: 'prefix', prefix: config.commandPrefix } as const);
    logger.info(firstAccountHint(commands));
  }
  return { server, deps, logger, db, postgres, checkpointer };
}

/**
 * Starts the server on `config` (SQLite or PostgreSQL, the workers, the
 * socket) and stops it in order on SIGTERM/SIGINT. A start-up failure is one
 * line on stderr and exit 1; the stack only at LOG_LEVEL=debug.
 */
export async function serve(config: Config, { underLitestream }: { underLitestream: boolean }) {
  const { server, deps, logger, db, postgres, checkpointer } = await start(
    config,
    underLitestream,
  ).catch((error: unknown) => failStartup(error, process.env.LOG_LEVEL === 'debug'));

  let stopping = false;
  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    await stopServing({ server, deps, db, postgres, checkpointer });
    logger.info('stopped');
    process.exit(0);
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** What a started server holds, in the order `stopServing` lets go of it. */
export interface Serving {
  server: { stop(): Promise<void> };
  deps: AppDeps;
  db?: Db;
  postgres?: SQL;
  checkpointer?: { stop(): Promise<void> };
}

/**
 * Stops a started server in order: no new request, the ones in flight
 * answered, the work they deferred done, the jobs at their current chunk,
 * the figures flushed, then the databases and connections closed.
 */
export async function stopServing({ server, deps, db, postgres, checkpointer }: Serving) {
  // Long polls of the change feed answer now instead of holding up the stop.
  releaseWaits();
  // Stop accepting; resolves once requests in flight have been answered.
  await server.stop();
  // Work those requests answered before doing (a password reset's mail) still writes.
  await deps.deferred.drain();
  // Waits for a running job to finish its current chunk.
  await deps.jobs?.stop();
  await deps.limiter.flush();
  await deps.usage.flush();
  // The others count one instance fewer at once, not after the heartbeat timeout.
  await deps.instances?.leave();
  await deps.replication?.stop();
  await deps.disk.stop();
  if (db) {
    // Creates queued for a group commit (normally none left once requests are answered).
    flushGroupCommit(db);
    await checkpointer?.stop();
    db.$client.close();
  }
  await postgres?.close({ timeout: 5 });
  deps.tokenCutoffs.stop();
  deps.notices?.close();
  deps.redis?.close();
}
