import { hasAnyUser } from '@/accounts/users';
import { lookUpPeersOn } from '@/api/request/peer';
import { buildDeps, createService } from '@/app';
import { UpgradeError, upgradeDatabase } from '@/backups';
import { ConfigError, parseConfig, parseDatabaseSettings } from '@/config';
import { migrationsFolder, openDatabase } from '@/db/client';
import { flushGroupCommit } from '@/db/group-commit';
import { serviceMigrations } from '@/db/migrate';
import { releaseWaits } from '@/events/signal';
import { MAX_BODY_BYTES } from '@/kernel/limits';
import { createLogger } from '@/logger';
import { RedisConnection } from '@/redis/connection';
import { kickDeliveriesOnEvents } from '@/workers/webhook-kick';

function loadConfig() {
  try {
    return parseConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Invalid configuration: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

const config = loadConfig();
if (config.redis) {
  // Without the shared state the instance would count and lead on its own: refuse to start.
  const problem = await RedisConnection.check(config.redis);
  if (problem) {
    console.error(`REDIS_URL: ${problem}`);
    process.exit(1);
  }
}
const logger = createLogger(config.logLevel, undefined, config.logFormat);
if (parseDatabaseSettings(process.env).databaseUrl !== undefined) {
  // Not served from yet: a DATABASE_URL set for the copy command must not look used.
  logger.warn(
    'DATABASE_URL is set, but this version serves from SQLite at DATABASE_PATH; only bun run migrate-to-postgres reads DATABASE_URL',
    { databasePath: config.databasePath },
  );
}
const db = openDatabase(config.databasePath);
try {
  // Pending migrations: a backup first when there is data, then all of them in one transaction.
  const upgrade = await upgradeDatabase(db.$client, serviceMigrations(migrationsFolder), {
    backupDir: config.backups.dir,
    now: Date.now(),
  });
  if (upgrade.applied.length > 0) logger.info('migrated', { ...upgrade });
} catch (error) {
  if (!(error instanceof UpgradeError)) throw error;
  console.error(error.message);
  process.exit(1);
}
const deps = buildDeps({ config, db, logger });
const service = createService(deps);
if (config.workers) {
  deps.jobs?.start();
  // New events go out to webhooks at once, not at the delivery job's next tick.
  kickDeliveriesOnEvents(deps);
}

const server = Bun.serve({
  port: config.port,
  hostname: config.host,
  // Bodies are checked at 1 MiB by the JSON parser (413 problem body); this is the backstop.
  maxRequestBodySize: MAX_BODY_BYTES * 2,
  tls: config.tls
    ? { cert: Bun.file(config.tls.certPath), key: Bun.file(config.tls.keyPath) }
    : undefined,
  fetch: service.fetch,
});
lookUpPeersOn(server);
logger.info('listening', {
  url: `${config.tls ? 'https' : 'http'}://${config.host}:${server.port}`,
  database: config.databasePath,
});
if (!hasAnyUser(db)) {
  logger.info(
    'no account yet: create the first employee with `bun run user:create -- --email you@example.com --role employee`, or fill the database with demo data: `bun run demo`',
  );
}

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info('shutting down', { signal });
  // Long polls of the change feed answer now instead of holding up the stop.
  releaseWaits();
  // Stop accepting; resolves once requests in flight have been answered.
  await server.stop();
  // Waits for a running job to finish its current chunk.
  await deps.jobs?.stop();
  await deps.limiter.flush();
  // The others count one instance fewer at once, not after the heartbeat timeout.
  await deps.instances?.leave();
  // Creates queued for a group commit (normally none left once requests are answered).
  flushGroupCommit(db);
  db.$client.close();
  deps.redis?.close();
  logger.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
