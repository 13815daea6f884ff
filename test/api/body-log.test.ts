import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { BODY_LOG_MAX, bodyCopyOf, loggableBody, REDACTED } from '@/api/request/body-log';
import { createService } from '@/app';
import { parseConfig } from '@/config';
import { migrateDatabase, openDatabase } from '@/db/sqlite/client';
import { buildDeps } from '@/deps';
import { createLogger, type Logger } from '@/logger';
import { BASE, tempDir } from '../support/harness';

const SECRET = 'hunter2-hunter2-hunter2';

/** The whole service on a temp database, its log lines captured at `level`. */
function loggedService(level: 'debug' | 'info') {
  const lines: Record<string, unknown>[] = [];
  const config = parseConfig({ DATABASE_PATH: join(tempDir(), 'app.db'), WORKERS: 'off' });
  const db = openDatabase(config.databasePath);
  migrateDatabase(db);
  const logger = createLogger(level, (line) => lines.push(JSON.parse(line)));
  const deps = buildDeps({ config, db, logger });
  const { fetch } = createService(deps);
  const post = (path: string, body: string, token?: string) =>
    fetch(
      new Request(`${BASE}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body,
      }),
    );
  return { lines, deps, post, close: () => db.$client.close() };
}

/** Lets the body copy be read (a few turns of the event loop, no timer). */
async function settle(done: () => boolean) {
  for (let turn = 0; turn < 200 && !done(); turn++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the request body of a failed request, at debug level', () => {
  test('a 401 sign-in: the request line, then the body with the password redacted', async () => {
    const app = loggedService('debug');
    const res = await app.post(
      '/auth/sign-in',
      JSON.stringify({ email: 'nobody@example.com', password: SECRET }),
    );
    expect(res.status).toBe(401);
    await settle(() => app.lines.some((line) => line.msg === 'request body'));
    const [request, body] = app.lines.filter(
      (l) => l.msg === 'request' || l.msg === 'request body',
    );
    expect(request).toMatchObject({ level: 'info', path: '/auth/sign-in', status: 401 });
    expect(body).toEqual({
      time: expect.any(String),
      level: 'debug',
      msg: 'request body',
      requestId: request!.requestId,
      body: { email: 'nobody@example.com', password: REDACTED },
    });
    expect(JSON.stringify(app.lines)).not.toContain(SECRET);
    app.close();
  });

  test('a 422 with a large body: truncated to BODY_LOG_MAX characters', async () => {
    const app = loggedService('debug');
    const token = await app.deps.tokens.issue('owner-1', 'employee', 60);
    const res = await app.post(
      '/listings/properties',
      JSON.stringify({ type: 'castle', notes: 'x'.repeat(10_000) }),
      token,
    );
    expect(res.status).toBe(422);
    await settle(() => app.lines.some((line) => line.msg === 'request body'));
    const logged = app.lines.find((line) => line.msg === 'request body')?.body;
    expect(typeof logged).toBe('string');
    expect((logged as string).startsWith('{"type":"castle","notes":"xxx')).toBe(true);
    expect((logged as string).length).toBeLessThan(BODY_LOG_MAX + 40);
    expect(logged as string).toEndWith(' characters)');
    app.close();
  });

  test('a 2xx answer logs no body', async () => {
    const app = loggedService('debug');
    const res = await app.post(
      '/auth/sign-up',
      JSON.stringify({ email: 'a@example.com', password: SECRET }),
    );
    expect(res.status).toBe(202);
    await settle(() => false);
    expect(app.lines.filter((line) => line.msg === 'request body')).toEqual([]);
    app.close();
  });

  test('at info level nothing is copied or logged', async () => {
    const info = createLogger('info', () => {});
    const request = new Request(`${BASE}/x`, { method: 'POST', body: '{"a":1}' });
    expect(bodyCopyOf(info, request)).toBeUndefined();
    expect(
      bodyCopyOf(
        createLogger('debug', () => {}),
        request,
      ),
    ).toBeInstanceOf(Request);
    const app = loggedService('info');
    expect(
      (await app.post('/auth/sign-in', JSON.stringify({ email: 'b@x.io', password: SECRET })))
        .status,
    ).toBe(401);
    await settle(() => false);
    expect(app.lines.map((line) => line.msg)).toEqual(['request']);
    app.close();
  });

  test('a GET is never copied (no body)', () => {
    const debug: Logger = createLogger('debug', () => {});
    expect(bodyCopyOf(debug, new Request(`${BASE}/x`))).toBeUndefined();
  });
});

describe('loggableBody', () => {
  test('secret-looking keys are redacted at any depth, other values kept', () => {
    const body = {
      email: 'a@example.com',
      password: SECRET,
      newPassword: SECRET,
      nested: {
        accessToken: SECRET,
        refresh_token: SECRET,
        items: [{ clientSecret: SECRET, n: 1 }],
      },
      credential: { id: 'abc', response: { clientDataJSON: SECRET } },
      Authorization: SECRET,
    };
    expect(loggableBody(JSON.stringify(body))).toEqual({
      email: 'a@example.com',
      password: REDACTED,
      newPassword: REDACTED,
      nested: {
        accessToken: REDACTED,
        refresh_token: REDACTED,
        items: [{ clientSecret: REDACTED, n: 1 }],
      },
      credential: REDACTED,
      Authorization: REDACTED,
    });
  });

  test.each([
    ['malformed JSON', `{"email": "a@b.c", "password": "${SECRET}", `],
    ['a form', `email=a%40b.c&password=${SECRET}&token=${SECRET}`],
    ['an escaped quote in the value', `{"password": "ab\\"${SECRET}", "x": `],
  ])('%s: the secret pairs are redacted in the text', (_, text) => {
    const logged = loggableBody(text);
    expect(typeof logged).toBe('string');
    expect(logged as string).not.toContain(SECRET);
    expect(logged as string).toContain(REDACTED);
  });
});
