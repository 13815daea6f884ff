import { expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BackupList, JobRunResult } from '@/api/admin/schemas';
import { createApp } from '@/app';
import { createLogger } from '@/logger';
import { createScheduler } from '@/workers/scheduler';
import { expectCustomerRefused } from '../support/auth-guards';
import { BASE, createTestApp, manualClock, problemOf, tempDir } from '../support/harness';
import { BACKUPS_COPY_THE_FILE, sqliteOnly } from '../support/postgres-mode';
import { gate, NEVER_SOON } from '../workers/support';
import { openBackup } from './support';

const AT = Date.UTC(2026, 10, 22, 3, 0, 0, 123);
const NAME = 'backup-20261122T030000123Z.db.gz';

async function employee(env: Record<string, string> = {}) {
  const ctx = createTestApp({ env, clock: manualClock(AT) });
  return { ...ctx, token: await ctx.tokenFor('ops', 'employee') };
}

sqliteOnly.describe(BACKUPS_COPY_THE_FILE, 'happy', () => {
  test('POST /admin/backups → 201 with the run record and Location; GET lists it; download is the database', async () => {
    const ctx = await employee();
    expect((await ctx.request('GET', '/admin/backups', { token: ctx.token })).body).toEqual({
      backups: [],
    });

    const created = await ctx.request('POST', '/admin/backups', { token: ctx.token });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/admin/backups/${NAME}`);
    const run = JobRunResult.parse(created.body);
    expect(run).toEqual({
      job: 'database-backup',
      startedAt: new Date(AT).toISOString(),
      finishedAt: new Date(AT).toISOString(),
      outcome: 'succeeded',
      details: {
        name: NAME,
        size: expect.any(Number),
        databaseSize: expect.any(Number),
        durationMs: expect.any(Number),
        pruned: 0,
      },
    });

    const list = await ctx.request('GET', '/admin/backups', { token: ctx.token });
    expect(list.status).toBe(200);
    expect(BackupList.parse(list.body)).toEqual({
      backups: [
        { name: NAME, size: Number(run.details.size), createdAt: new Date(AT).toISOString() },
      ],
    });

    const download = await ctx.fetch(
      new Request(`${BASE}/admin/backups/${NAME}`, {
        headers: { authorization: `Bearer ${ctx.token}` },
      }),
    );
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/gzip');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="${NAME}"`);
    const file = join(tempDir(), NAME);
    writeFileSync(file, Buffer.from(await download.arrayBuffer()));
    const copy = openBackup(file);
    expect(copy.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    copy.close();
  });

  test('the list is newest first and ignores files that are not backups', async () => {
    const ctx = await employee();
    await ctx.request('POST', '/admin/backups', { token: ctx.token });
    ctx.clock.advance(86_400_000);
    const token = await ctx.tokenFor('ops', 'employee');
    await ctx.request('POST', '/admin/backups', { token });
    writeFileSync(join(ctx.dir, 'backups', 'notes.txt'), 'not a backup');
    const list = await ctx.request<{ backups: { name: string }[] }>('GET', '/admin/backups', {
      token,
    });
    expect(list.body.backups.map((entry) => entry.name)).toEqual([
      'backup-20261123T030000123Z.db.gz',
      NAME,
    ]);
  });
});

sqliteOnly.describe(BACKUPS_COPY_THE_FILE, 'error', () => {
  test.each([
    ['..%2Fapp.db'],
    ['%2e%2e%2fapp.db'],
    ['app.db'],
    ['backup-20261122T030000123Z.db'],
    ['backup-latest.db.gz'],
    ['notes.txt'],
  ])('GET /admin/backups/%s → 400 problem, nothing read', async (name) => {
    const ctx = await employee();
    writeFileSync(join(ctx.dir, 'notes.txt'), 'secret');
    const res = await ctx.request('GET', `/admin/backups/${name}`, { token: ctx.token });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toEqual(
      problemOf(400, 'A backup name looks like backup-20261122T030000000Z.db.gz'),
    );
  });

  test('GET /admin/backups/{name} for a well-formed name with no file → 404 problem naming it', async () => {
    const ctx = await employee();
    const res = await ctx.request('GET', `/admin/backups/${NAME}`, { token: ctx.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(problemOf(404, `Backup "${NAME}" was not found`));
  });

  test('POST /admin/backups while one runs → 409 problem', async () => {
    const ctx = await employee();
    const blocker = gate();
    let started = false;
    const jobs = createScheduler({
      jobs: [
        {
          name: 'database-backup',
          pattern: NEVER_SOON,
          run: () => {
            started = true;
            return blocker.opened.then(() => ({ name: NAME }));
          },
        },
      ],
      runs: ctx.deps.stores.jobRuns,
      logger: createLogger('silent'),
      clock: ctx.clock,
    });
    const app = createApp({ ...ctx.deps, jobs });
    const post = () =>
      app.handle(
        new Request(`${BASE}/admin/backups`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ctx.token}` },
        }),
      );
    const first = post();
    for (let i = 0; i < 200 && !started; i++) await Bun.sleep(1);
    const second = await post();
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual(problemOf(409, 'A backup is already running'));
    blocker.open();
    expect((await first).status).toBe(201);
  });

  test('POST /admin/backups when the backup fails → 500 problem with the reason, recorded as failed', async () => {
    const blocker = join(tempDir(), 'a-file');
    writeFileSync(blocker, '');
    const ctx = await employee({ BACKUP_DIR: blocker });
    const res = await ctx.request<{ detail: string }>('POST', '/admin/backups', {
      token: ctx.token,
    });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      ...problemOf(500),
      detail: expect.stringMatching(/^The backup failed: .*a-file/),
    });
    const [job] = (await ctx.deps.jobs!.status()).filter(
      (entry) => entry.name === 'database-backup',
    );
    expect(job?.lastRuns.map((run) => run.outcome)).toEqual(['failed']);
  });
});

sqliteOnly.describe(BACKUPS_COPY_THE_FILE, 'auth', () => {
  const routes = [
    ['GET', '/admin/backups'],
    ['POST', '/admin/backups'],
    ['GET', `/admin/backups/${NAME}`],
  ] as const;

  test.each(routes)('%s %s without a token → 401 problem', async (method, path) => {
    const res = await createTestApp().request(method, path);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(problemOf(401));
  });

  test.each(routes)('%s %s with an invalid token → 401 problem', async (method, path) => {
    const res = await createTestApp().request(method, path, { token: 'not.a.jwt' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(problemOf(401));
  });

  test.each(routes)('%s %s as a customer → 403 problem, no backup taken', async (method, path) => {
    const ctx = await employee();
    await ctx.request('POST', '/admin/backups', { token: ctx.token });
    await expectCustomerRefused(ctx, [`${method} ${path}`]);
    const list = await ctx.request<{ backups: unknown[] }>('GET', '/admin/backups', {
      token: ctx.token,
    });
    expect(list.body.backups).toHaveLength(1);
  });
});
