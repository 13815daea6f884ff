import { expect, test } from 'bun:test';
import { copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { recordPeerAddress } from '@/api/request/peer';
import { createTestApp, tempDir } from '../support/harness';
import { runCommand } from './support';

const ROOT = join(import.meta.dir, '..', '..');
const CONSUMER = join(ROOT, 'test', 'client-consumer');
/** TypeScript 5, installed by the generated-client check (test/generated-client/setup.sh). */
const TSC5 = join(ROOT, 'test', 'generated-client', 'node_modules', '.bin', 'tsc');

const ok = (step: string, result: { code: number; output: string }) =>
  expect(result.code === 0 ? step : `${step} failed:\n${result.output}`).toBe(step);

/**
 * The client as anyone would get it: `npm pack` in client/ (its build
 * generates the types from the schemas and compiles to ESM with
 * declarations), installed from the tarball into a fresh project, whose
 * program type-checks with TypeScript 5 against the package's own
 * declarations and runs with Node against the started service.
 */
test('the packed client installs, type-checks and runs in a fresh project', async () => {
  ok('tools', await runCommand(['bash', join(ROOT, 'test', 'generated-client', 'setup.sh')], ROOT));
  const packs = tempDir('client-pack-');
  ok('pack', await runCommand(['npm', 'pack', '--pack-destination', packs], join(ROOT, 'client')));
  const tarball = join(packs, readdirSync(packs).find((name) => name.endsWith('.tgz'))!);

  const project = tempDir('client-consumer-');
  await Bun.write(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  for (const file of ['program.ts', 'tsconfig.json'])
    copyFileSync(join(CONSUMER, file), join(project, file));
  ok('install', await runCommand(['npm', 'install', '--no-audit', '--no-fund', tarball], project));
  ok('type-check', await runCommand([TSC5, '--noEmit', '-p', '.'], project));
  ok('compile', await runCommand([TSC5, '-p', '.'], project));

  const ctx = createTestApp({ env: { WORKERS: 'off' } });
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (request, srv) => {
      recordPeerAddress(request, srv.requestIP(request)?.address);
      return ctx.fetch(request);
    },
  });
  // Takes every request and never answers: the program's timeout meets it.
  const silent = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () => new Promise<Response>(() => {}),
  });
  try {
    const customerId = 'packed-client-customer';
    const program = await runCommand(['node', join('build', 'program.js')], project, {
      BASE_URL: `http://127.0.0.1:${server.port}`,
      EMPLOYEE_TOKEN: await ctx.tokenFor('packed-client-employee', 'employee'),
      CUSTOMER_TOKEN: await ctx.tokenFor(customerId, 'customer'),
      CUSTOMER_ID: customerId,
      SILENT_URL: `http://127.0.0.1:${silent.port}`,
    });
    console.log(program.output.trim());
    ok('run', program);
    expect(program.output).toContain('client package OK');
  } finally {
    server.stop(true);
    silent.stop(true);
  }
}, 300_000);
