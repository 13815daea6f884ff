import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { createTestApp, tempDir } from '../support/harness';

const ROOT = join(import.meta.dir, '..', '..');

/**
 * `redocly lint` with the recommended rules (redocly.yaml names and justifies
 * each rule turned off) on the document the service serves, besides the
 * schema validation of test/api/docs.test.ts.
 */
test('redocly lint passes on /docs/json with no error and no warning', async () => {
  const ctx = createTestApp();
  const res = await ctx.request('GET', '/docs/json');
  const file = join(tempDir('openapi-lint-'), 'openapi.json');
  await Bun.write(file, res.text);
  const lint = Bun.spawn(
    [
      join(ROOT, 'node_modules', '.bin', 'redocly'),
      'lint',
      '--config',
      join(ROOT, 'redocly.yaml'),
      file,
    ],
    {
      cwd: ROOT,
      stdout: 'pipe',
      stderr: 'pipe',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  const [code, out, err] = await Promise.all([
    lint.exited,
    new Response(lint.stdout).text(),
    new Response(lint.stderr).text(),
  ]);
  const report = `${out}\n${err}`;
  expect(code === 0 ? 'lint passed' : report).toBe('lint passed');
  expect(report).toContain('Your API description is valid');
  // A rule at warning level still passes: none may fire either.
  expect(report).not.toMatch(/\d+ warnings?\b/);
}, 60_000);
