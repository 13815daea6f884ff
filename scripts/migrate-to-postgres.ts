/**
 * `npm run migrate-to-postgres -- --from FILE --to URL`: copies a SQLite
 * database (default DATABASE_PATH) into an empty PostgreSQL database (default
 * DATABASE_URL), migrating it first, in one transaction; prints the rows of
 * every table on both sides and exits 1, with nothing kept, when any differ
 * (docs/postgresql.md).
 */
import { parseDatabaseSettings, shownValue } from '@/config';
import { CopyError, copySqliteToPostgres, type TableCount } from '@/db/pg/copy';
import { command, configOrFail, fail } from './cli';
import { migrateToPostgresCommand } from './commands';

const isPostgresUrl = (url: string) =>
  URL.canParse(url) && ['postgres:', 'postgresql:'].includes(new URL(url).protocol);

const { values, refuse } = command(migrateToPostgresCommand);
if (values.to !== undefined && !isPostgresUrl(values.to)) {
  // Its password is not echoed.
  refuse(
    `--to must be a postgres:// or postgresql:// URL (got ${shownValue('DATABASE_URL', values.to)})`,
  );
}
// DATABASE_PATH and DATABASE_URL alone: the copy needs no JWT secret.
const settings = configOrFail(() => parseDatabaseSettings(process.env));

const from = values.from ?? settings.databasePath;
const fromName = values.from ? '--from' : 'DATABASE_PATH';
const to = values.to ?? settings.databaseUrl;
// Named the way the operator gave it, so the one line says what to fix.
const toName = values.to ? '--to' : 'DATABASE_URL';
if (!to) fail('DATABASE_URL: not set; set it or pass --to postgres://…');

const number = (n: number) => n.toLocaleString('en-US');

function printCounts(counts: readonly TableCount[]): void {
  const width = Math.max(5, ...counts.map((count) => count.table.length));
  console.log(`${'table'.padEnd(width)}  ${'sqlite'.padStart(12)}  ${'postgres'.padStart(12)}`);
  for (const { table, sqlite, postgres } of counts) {
    const mark = sqlite === postgres ? '' : '  ← differs';
    console.log(
      `${table.padEnd(width)}  ${number(sqlite).padStart(12)}  ${number(postgres).padStart(12)}${mark}`,
    );
  }
}

const started = performance.now();
try {
  const counts = await copySqliteToPostgres(from, to, {
    onStep: (step, ms) => console.error(`${step} in ${(ms / 1000).toFixed(1)} s`),
  });
  printCounts(counts);
  const rows = counts.reduce((sum, count) => sum + count.postgres, 0);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`copied ${counts.length} tables, ${number(rows)} rows, in ${seconds} s`);
} catch (error) {
  if (!(error instanceof CopyError)) throw error;
  if (error.counts.length > 0) printCounts(error.counts);
  const name =
    error.code === 'target_unreachable' ? toName : error.code.startsWith('source') ? fromName : '';
  fail(name ? `${name}: ${error.message}` : error.message);
}
