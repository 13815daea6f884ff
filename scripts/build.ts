/**
 * `npm run build`: the whole service as one executable, dist/listings-service
 * (`bun build --compile`: the Bun runtime, the code and its dependencies).
 * What the service reads from disk when run from the source tree goes inside
 * it: the migrations (journal and SQL), the account page (HTML, CSS and
 * its script, bundled for the browser here rather than on first request)
 * and the other pages' files (src/web/page-assets.json: /docs, /console).
 * They are handed over through src/kernel/embedded.ts by a generated entry
 * module that fills it in, then starts src/index.ts.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { command } from './cli';
import { buildCommand } from './commands';

// `--help` answers before anything is built.
command(buildCommand);

const root = join(import.meta.dir, '..');
const work = join(root, 'dist', '.build');
const outfile = join(root, 'dist', 'listings-service');

async function browserBundle(entry: string): Promise<string> {
  const result = await Bun.build({
    entrypoints: [entry],
    target: 'browser',
    format: 'esm',
    minify: true,
  });
  const output = result.outputs[0];
  if (!result.success || !output) throw new AggregateError(result.logs, entry);
  return output.text();
}

const migrations = join(root, 'migrations');
const journal = readFileSync(join(migrations, 'meta', '_journal.json'), 'utf8');
const tags = (JSON.parse(journal) as { entries: { tag: string }[] }).entries.map((e) => e.tag);
const sql = Object.fromEntries(
  tags.map((tag) => [tag, readFileSync(join(migrations, `${tag}.sql`), 'utf8')]),
);
const web = join(root, 'src', 'web');
const accountAssets = {
  'account.html': readFileSync(join(web, 'account.html'), 'utf8'),
  'account.css': readFileSync(join(web, 'account.css'), 'utf8'),
  'console/data.css': readFileSync(join(web, 'console', 'data.css'), 'utf8'),
  'app.js': await browserBundle(join(web, 'account-app.ts')),
  'uplot.css': readFileSync(Bun.resolveSync('uplot/dist/uPlot.min.css', web), 'utf8'),
};

/** The other pages' files as src/web/assets.ts would make them: src/web/page-assets.json. */
type AssetSource = { file: string } | { bundle: string } | { package: string };
const manifest = JSON.parse(readFileSync(join(web, 'page-assets.json'), 'utf8')) as Record<
  string,
  Record<string, AssetSource>
>;
const produce = (source: AssetSource): string | Promise<string> => {
  if ('file' in source) return readFileSync(join(web, source.file), 'utf8');
  if ('package' in source) return readFileSync(Bun.resolveSync(source.package, web), 'utf8');
  return browserBundle(join(web, source.bundle));
};
const pageAssets: Record<string, Record<string, string>> = {};
for (const [page, files] of Object.entries(manifest)) {
  pageAssets[page] = {};
  for (const [name, source] of Object.entries(files))
    pageAssets[page][name] = await produce(source);
}

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
writeFileSync(
  join(work, 'embedded-data.ts'),
  `import { embedded } from ${JSON.stringify(join(root, 'src', 'kernel', 'embedded.ts'))};
embedded.migrations = ${JSON.stringify({ journal, sql })};
embedded.accountAssets = ${JSON.stringify(accountAssets)};
embedded.pageAssets = ${JSON.stringify(pageAssets)};
`,
);
// Module order: the data is in place before src/index.ts runs. The bundle
// initialises the server's modules lazily (src/index.ts imports src/server.ts
// on demand), which would run @peculiar/x509's check for the Reflect
// metadata polyfill before @simplewebauthn/server's own import of it: so
// the polyfill comes first here.
writeFileSync(
  join(work, 'entry.ts'),
  `import 'reflect-metadata';
import './embedded-data.ts';
import ${JSON.stringify(join(root, 'src', 'index.ts'))};
`,
);

const started = performance.now();
const build = Bun.spawnSync(
  [
    process.execPath,
    'build',
    '--compile',
    // The runtime flag `npm start` and the image use (docs/performance.md, Memory).
    '--compile-exec-argv=--smol',
    join(work, 'entry.ts'),
    '--outfile',
    outfile,
  ],
  { cwd: root, stdout: 'inherit', stderr: 'inherit' },
);
rmSync(work, { recursive: true, force: true });
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);
const size = Bun.file(outfile).size;
console.log(
  `built ${outfile}: ${(size / 1024 / 1024).toFixed(1)} MiB, ${tags.length} migrations embedded, in ${Math.round(performance.now() - started)} ms`,
);
