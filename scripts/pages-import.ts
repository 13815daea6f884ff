import { existsSync, statSync } from 'node:fs';
import { ConfigError, parseConfig } from '@/config';
import { importStaticPages } from '@/content/import';
import { sqliteContentStore } from '@/content/sqlite-store';
import { migrateDatabase, openDatabase } from '@/db/client';
import { fail } from './cli';

const usage = 'usage: bun run pages:import -- DIR   (imports DIR/*.json and DIR/*.md)';
const args = Bun.argv.slice(2).filter((arg) => arg !== '--');
const [dir] = args;
if (args.length !== 1 || !dir || dir.startsWith('-')) fail(usage);
if (!existsSync(dir) || !statSync(dir).isDirectory()) fail(`${dir}: not a directory\n${usage}`);

let config: ReturnType<typeof parseConfig>;
try {
  config = parseConfig(process.env);
} catch (error) {
  fail(error instanceof ConfigError ? `Invalid configuration: ${error.message}` : String(error));
}

const db = openDatabase(config.databasePath);
migrateDatabase(db);
const report = await importStaticPages(sqliteContentStore(db), dir, Date.now());
db.$client.close();

for (const { file, slug, language, created } of report.imported) {
  console.log(`imported ${file} → ${slug} (${language}), ${created ? 'created' : 'replaced'}`);
}
for (const file of report.skipped) console.log(`skipped ${file}: not .json or .md`);
for (const { file, reason } of report.refused) console.error(`refused ${file}: ${reason}`);
console.log(`${report.imported.length} imported, ${report.refused.length} refused`);
// A running server notices the import within a second (PRAGMA data_version).
process.exit(report.refused.length > 0 ? 1 : 0);
