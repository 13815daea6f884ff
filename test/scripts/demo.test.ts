import { expect, test } from 'bun:test';
import { SQL } from 'bun';
import { createService } from '@/app';
import { parseConfig } from '@/config';
import { openDatabase } from '@/db/sqlite/client';
import { buildDeps } from '@/deps';
import { createLogger } from '@/logger';
import { countRows } from '../../scripts/demo-data';
import { runScript } from '../support/script';
import { COMMAND_DATABASES, type FreshDatabase } from './databases';

/** `npm run demo` as a developer runs it, on the database of `env`. */
const demo = (env: Record<string, string>, ...args: string[]) =>
  runScript('demo.ts', args, { ...env, PORT: '', TLS_CERT_PATH: '' });

async function countsIn(fresh: FreshDatabase) {
  const database = await fresh.open();
  const counts = await countRows(database.countRows);
  await database.close();
  return counts;
}

/** The curl commands printed: `curl [-H 'Name: value'] 'url'`. */
function curlsOf(stdout: string) {
  return [...stdout.matchAll(/^curl (?:-H '([^']+)' )?'([^']+)'$/gm)].map(([, header, url]) => ({
    header,
    url: url!,
  }));
}

/** The service on the same database and secret, as `npm start` would serve it; closed by `done`. */
function serviceOn({ env, databasePath, databaseUrl }: FreshDatabase) {
  const config = parseConfig({ ...env, PORT: '', TLS_CERT_PATH: '', WORKERS: 'off' });
  const logger = createLogger('silent');
  if (databaseUrl) {
    const postgres = new SQL(databaseUrl, { max: 2 });
    const { fetch } = createService(buildDeps({ config, postgres, logger }));
    return { fetch, done: () => postgres.close({ timeout: 0 }) };
  }
  const db = openDatabase(databasePath);
  const { fetch } = createService(buildDeps({ config, db, logger }));
  return { fetch, done: async () => db.$client.close() };
}

for (const target of COMMAND_DATABASES) {
  target.describe('npm run demo', () => {
    test('fills the database once; a second run adds nothing', async () => {
      const fresh = await target.fresh();
      const first = await demo(fresh.env);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toStartWith(`demo data in ${fresh.where}:`);
      const counts = await countsIn(fresh);
      expect(counts).toMatchObject({
        users: 2,
        properties: 200,
        neighbourhoods: 24,
        static_pages: 8,
        plans: 2,
        plan_assignments: 1,
        transactions: 300,
      });
      expect(counts.units).toBeGreaterThan(200);
      expect(counts.unit_features).toBeGreaterThan(0);
      expect(counts.property_additional_data).toBe(50);
      // Credentials are printed once, when the accounts are created.
      expect(first.stdout.match(/password: [\w-]{16}$/gm)).toHaveLength(2);

      const second = await demo(fresh.env);
      expect(second.code).toBe(0);
      expect(await countsIn(fresh)).toEqual(counts);
      expect(second.stdout).not.toMatch(/password: [\w-]{16}$/m);
      expect(curlsOf(second.stdout)).toHaveLength(3);
    });

    test('the three printed curl commands answer 200 with data', async () => {
      const fresh = await target.fresh();
      const run = await demo(fresh.env);
      expect(run.code).toBe(0);
      const curls = curlsOf(run.stdout);
      expect(curls.map(({ url }) => new URL(url).pathname)).toEqual([
        '/listings/properties',
        expect.stringMatching(/^\/listings\/properties\/[0-9a-f-]{36}$/),
        '/api/v1/tokens/limits',
      ]);
      expect(curls.every(({ url }) => url.startsWith('http://localhost:3000/'))).toBe(true);

      const { fetch, done } = serviceOn(fresh);
      const bodies: Record<string, unknown>[] = [];
      try {
        for (const { header, url } of curls) {
          const headers = new Headers();
          if (header) {
            const [name, ...value] = header.split(': ');
            headers.set(name!, value.join(': '));
          }
          const res = await fetch(new Request(url, { headers }));
          expect([url, res.status]).toEqual([url, 200]);
          bodies.push((await res.json()) as Record<string, unknown>);
        }
      } finally {
        await done();
      }
      const [list, property, limits] = bodies;
      expect(list).toMatchObject({ count: 5, total: 60 });
      expect(property).toMatchObject({ id: new URL(curls[1]!.url).pathname.split('/').at(-1) });
      expect(limits).toMatchObject({
        rate_limits: { audience: 'customer', plan: { slug: 'pro' } },
      });
    });
  });
}

COMMAND_DATABASES[0]!.describe('npm run demo: where the curl commands point', () => {
  test.each([
    [{ PORT: '4567' }, 'http://localhost:4567/'],
    [
      { PORT: '4567', PUBLIC_ORIGIN: 'https://listings.example.com' },
      'https://listings.example.com/',
    ],
  ])('%j → %s', async (settings, prefix) => {
    const fresh = await COMMAND_DATABASES[0]!.fresh();
    const run = await runScript('demo.ts', [], { ...fresh.env, TLS_CERT_PATH: '', ...settings });
    expect(run.code).toBe(0);
    const urls = curlsOf(run.stdout).map(({ url }) => url);
    expect(urls).toHaveLength(3);
    expect(urls.filter((url) => !url.startsWith(prefix))).toEqual([]);
    expect(run.stdout).toContain('(with `npm start` or `npm run dev` running)');
    expect(run.stdout).not.toContain('bun run');
  });
});

COMMAND_DATABASES[0]!.describe('npm run demo -- --reset', () => {
  test('deletes the file and starts over', async () => {
    const fresh = await COMMAND_DATABASES[0]!.fresh();
    expect((await demo(fresh.env)).code).toBe(0);
    const counts = await countsIn(fresh);
    const reset = await demo(fresh.env, '--reset');
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain(`reset: deleted ${fresh.databasePath}`);
    expect(await countsIn(fresh)).toEqual(counts);
    expect(reset.stdout.match(/password: [\w-]{16}$/gm)).toHaveLength(2);
  });
});

COMMAND_DATABASES[1]!.describe('npm run demo -- --reset', () => {
  test('is refused in one line, and the data is kept', async () => {
    const fresh = await COMMAND_DATABASES[1]!.fresh();
    expect((await demo(fresh.env)).code).toBe(0);
    const counts = await countsIn(fresh);
    const reset = await demo(fresh.env, '--reset');
    expect(reset).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'demo: --reset deletes the SQLite file at DATABASE_PATH; with DATABASE_URL set, drop and create the database instead (dropdb, createdb), then run the demo',
    });
    expect(await countsIn(fresh)).toEqual(counts);
  });
});
