import { existsSync, statSync } from 'node:fs';
import { ConfigError, parseConfig } from '@/config';
import { importStaticPages } from '@/content/import';
import { fail } from './cli';
import { openStores } from './database';

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

const database = await openStores(config.databasePath);
const report = await importStaticPages(database.stores.content, dir, Date.now());
await database.close();

for (const { file, slug, language, created } of report.imported) {
  console.log(`imported ${file} → ${slug} (${language}), ${created ? 'created' : 'replaced'}`);
}
for (const file of report.skipped) console.log(`skipped ${file}: not .json or .md`);
for (const { file, reason } of report.refused) console.error(`refused ${file}: ${reason}`);
console.log(`${report.imported.length} imported, ${report.refused.length} refused`);
// A running server notices the import within a second on SQLite (PRAGMA data_version) and at
// once on PostgreSQL (nothing is remembered there).
process.exit(report.refused.length > 0 ? 1 : 0);
