import { existsSync, statSync } from 'node:fs';
import { importStaticPages } from '@/content/import';
import { command, fail, loadConfig } from './cli';
import { pagesImportCommand } from './commands';
import { openStores } from './database';

const [dir] = command(pagesImportCommand).operands as [string];
if (!existsSync(dir) || !statSync(dir).isDirectory()) fail(`${dir}: not a directory`);
const config = loadConfig();

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
