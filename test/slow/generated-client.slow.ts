import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { recordPeerAddress } from '@/api/request/peer';
import { createTestApp } from '../support/harness';
import { runCommand } from './support';

const FOLDER = join(import.meta.dir, '..', 'generated-client');
const bin = (name: string) => join(FOLDER, 'node_modules', '.bin', name);

const run = (command: string[], env: Record<string, string> = {}) =>
  runCommand(command, FOLDER, env);

/**
 * Anyone's client: types generated from the service's own /docs/json with
 * openapi-typescript, a small openapi-fetch program type-checked with
 * TypeScript 5 (numbers and booleans where the API takes them), then run
 * against the service listening on a socket. The folder installs its own
 * tools from the npm registry (setup.sh).
 */
test('a client generated from /docs/json type-checks and works against the service', async () => {
  const setup = await run(['bash', join(FOLDER, 'setup.sh')]);
  expect(setup.code === 0 ? 'installed' : setup.output).toBe('installed');

  const ctx = createTestApp({ env: { WORKERS: 'off' } });
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (request, srv) => {
      recordPeerAddress(request, srv.requestIP(request)?.address);
      return ctx.fetch(request);
    },
  });
  try {
    const baseUrl = `http://127.0.0.1:${server.port}`;
    await Bun.write(join(FOLDER, 'generated', 'openapi.json'), await fetch(`${baseUrl}/docs/json`));
    const generate = await run([
      bin('openapi-typescript'),
      'generated/openapi.json',
      '-o',
      'generated/schema.d.ts',
    ]);
    expect(generate.code === 0 ? 'generated' : generate.output).toBe('generated');
    const typecheck = await run([bin('tsc'), '-p', '.']);
    expect(typecheck.code === 0 ? 'type-checked' : typecheck.output).toBe('type-checked');

    const customerId = 'generated-client-customer';
    const program = await run([process.execPath, 'program.ts'], {
      BASE_URL: baseUrl,
      EMPLOYEE_TOKEN: await ctx.tokenFor('generated-client-employee', 'employee'),
      CUSTOMER_TOKEN: await ctx.tokenFor(customerId, 'customer'),
      CUSTOMER_ID: customerId,
    });
    console.log(program.output.trim());
    expect(program.code === 0 ? 'ran' : program.output).toBe('ran');
    expect(program.output).toContain('generated client OK');
  } finally {
    server.stop(true);
  }
}, 300_000);
