import { ConfigError, parseConfig, parseDatabaseSettings } from '@/config';
import { runUnderLitestream, UNDER_LITESTREAM } from '@/replication/launch';
import { helpText, invocationOf, version } from '@/startup/command-line';
import {
  databaseFolderFailureOf,
  failStartup,
  StartupError,
  type StartupFailure,
  step,
} from '@/startup/failure';

/*
 * The entry point: the command line, the configuration, then either the
 * server (src/server.ts) or, when a replica is configured, Litestream with
 * the server under it. The server's modules are loaded only in the process
 * that serves, so the launcher that stays beside Litestream holds the
 * configuration and little else (about 49 MB resident instead of 82 MB, measured).
 */

// The launcher passes UNDER_LITESTREAM to the server it starts (src/replication/launch.ts).
const underLitestream = process.argv.includes(UNDER_LITESTREAM);
const invocation = invocationOf(process.argv.slice(2).filter((arg) => arg !== UNDER_LITESTREAM));
if (invocation.kind === 'help') {
  console.log(helpText());
  process.exit(0);
}
if (invocation.kind === 'version') {
  console.log(version);
  process.exit(0);
}

/** The configuration; the secret file it may create is the first write to the database folder. */
function configFailureOf(error: unknown): StartupFailure {
  if (error instanceof ConfigError) return { kind: 'configuration', message: error.message };
  return databaseFolderFailureOf(error, parseDatabaseSettings(process.env).databasePath);
}

// One line on stderr and exit 1 (2: a bad argument); the stack only at LOG_LEVEL=debug.
const config = await (async () => {
  if (invocation.kind === 'unknown') {
    throw new StartupError({ kind: 'usage', argument: invocation.argument });
  }
  return step(() => parseConfig(process.env), configFailureOf);
})().catch((error: unknown) => failStartup(error, process.env.LOG_LEVEL === 'debug'));

if (config.replica && !underLitestream) {
  // This process only starts Litestream, which starts the server (src/replication/launch.ts).
  process.exit(await runUnderLitestream(config.databasePath, config.replica));
}
const { serve } = await import('./server');
await serve(config, { underLitestream });
