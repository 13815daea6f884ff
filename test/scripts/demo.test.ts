import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { buildDeps, createService } from '@/app';
import { parseConfig } from '@/config';
import { openDatabase } from '@/db/client';
import { createLogger } from '@/logger';
import { countRows } from '../../scripts/demo-data';
import { tempDir } from '../support/harness';

const root = join(import.meta.dir, '..', '..');

/** `bun run demo` as a developer runs it, on `databasePath`. */
async function demo(databasePath: string, ...args: string[]) {
  const proc = Bun.spawn([process.execPath, 'scripts/demo.ts', ...args], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_PATH: databasePath,
      JWT_SECRET: '',
      PORT: '',
      TLS_CERT_PATH: '',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const code = await proc.exited;
  return {
    code,
    stdout: await new Response(proc.stdout).text(),
    stderr: await new Response(proc.stderr).text(),
  };
}

function countsIn(databasePath: string) {
  const db = openDatabase(databasePath);
  const counts = countRows(db);
  db.$client.close();
  return counts;
}

/** The curl commands printed: `curl [-H 'Name: value'] 'url'`. */
function curlsOf(stdout: string) {
  return [...stdout.matchAll(/^curl (?:-H '([^']+)' )?'([^']+)'$/gm)].map(([, header, url]) => ({
    header,
    url: url!,
  }));
}

describe('bun run demo', () => {
  test('fills the database once; a second run adds nothing; --reset starts over', async () => {
    const databasePath = join(tempDir('listings-demo-'), 'app.db');
    const first = await demo(databasePath);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const counts = countsIn(databasePath);
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

    const second = await demo(databasePath);
    expect(second.code).toBe(0);
    expect(countsIn(databasePath)).toEqual(counts);
    expect(second.stdout).not.toMatch(/password: [\w-]{16}$/m);
    expect(curlsOf(second.stdout)).toHaveLength(3);

    const reset = await demo(databasePath, '--reset');
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain(`reset: deleted ${databasePath}`);
    expect(countsIn(databasePath)).toEqual(counts);
    expect(reset.stdout.match(/password: [\w-]{16}$/gm)).toHaveLength(2);
  });

  test('the three printed curl commands answer 200 with data', async () => {
    const databasePath = join(tempDir('listings-demo-'), 'app.db');
    const run = await demo(databasePath);
    expect(run.code).toBe(0);
    const curls = curlsOf(run.stdout);
    expect(curls.map(({ url }) => new URL(url).pathname)).toEqual([
      '/listings/properties',
      expect.stringMatching(/^\/listings\/properties\/[0-9a-f-]{36}$/),
      '/api/v1/tokens/limits',
    ]);
    expect(curls.every(({ url }) => url.startsWith('http://localhost:3000/'))).toBe(true);

    // The service on the same file and secret, as `npm start` would serve it.
    const config = parseConfig({ DATABASE_PATH: databasePath, WORKERS: 'off' });
    const db = openDatabase(databasePath);
    const { fetch } = createService(buildDeps({ config, db, logger: createLogger('silent') }));
    const bodies: Record<string, unknown>[] = [];
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
    db.$client.close();
    const [list, property, limits] = bodies;
    expect(list).toMatchObject({ count: 5, total: 60 });
    expect(property).toMatchObject({ id: new URL(curls[1]!.url).pathname.split('/').at(-1) });
    expect(limits).toMatchObject({
      rate_limits: { audience: 'customer', plan: { slug: 'pro' } },
    });
  });
});
