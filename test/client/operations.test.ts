import { describe, expect, test } from 'bun:test';
import { gunzipSync } from 'node:zlib';
import { BackupList, JobList, JobRunResult } from '@/api/admin/schemas';
import { Health } from '@/api/health/schemas';
import { AuditPage } from '@/audit/schemas';
import { WebhookSummary } from '@/webhooks/schemas';
import { ProblemError } from '../../client/src';
import { problemOf } from '../support/harness';
import { BACKUPS_COPY_THE_FILE, sqliteOnly } from '../support/postgres-mode';
import { serviceUnderTest } from './support';

// Webhook endpoints on loopback (nothing is delivered: only the summary is read).
const svc = await serviceUnderTest({ WEBHOOKS_ALLOW_HTTP: 'true', WEBHOOKS_ALLOW_PRIVATE: 'true' });

describe('happy', () => {
  test('health answers without a token', async () => {
    expect(Health.parse(await svc.anonymous.health())).toMatchObject({ status: 'ok' });
  });

  test('admin jobs: list and run one', async () => {
    const { jobs } = JobList.parse(await svc.employee.admin.jobs.list());
    expect(jobs.map((job) => job.name)).toEqual([
      'plan-window-reset',
      'unit-counter-reconcile',
      'static-page-cache-warm',
      'events-prune',
      'webhook-delivery',
      'mail-delivery',
      'database-backup',
      'audit-retention',
    ]);
    const run = JobRunResult.parse(await svc.employee.admin.jobs.run('static-page-cache-warm'));
    expect(run).toMatchObject({ job: 'static-page-cache-warm', outcome: 'succeeded' });
  });

  test('the audit log: the job run by hand, filtered by action', async () => {
    await svc.employee.admin.jobs.run('plan-window-reset');
    const page = AuditPage.parse(await svc.employee.admin.audit({ action: 'job.run', limit: 1 }));
    expect(page.events).toEqual([
      expect.objectContaining({ action: 'job.run', target: 'plan-window-reset' }),
    ]);
  });
});

sqliteOnly.describe(BACKUPS_COPY_THE_FILE, 'backups', () => {
  test('take one, find it in the list, download the gzip-compressed database', async () => {
    const { backups } = svc.employee.admin;
    const run = JobRunResult.parse(await backups.create());
    expect(run).toMatchObject({ job: 'database-backup', outcome: 'succeeded' });
    const name = String(run.details.name);
    const { backups: listed } = BackupList.parse(await backups.list());
    expect(listed.map((entry) => entry.name)).toContain(name);

    const file = await backups.download(name);
    expect(file.headers.get('content-type')).toBe('application/gzip');
    const database = gunzipSync(new Uint8Array(await file.arrayBuffer()));
    expect(new TextDecoder().decode(database.subarray(0, 15))).toBe('SQLite format 3');
    expect(file.bodyUsed).toBe(true);
  });

  test('a malformed name is a 400 problem, an unknown one a 404', async () => {
    const { backups } = svc.employee.admin;
    const malformed = await backups.download('passwords.txt').catch((e: unknown) => e);
    expect(malformed).toBeInstanceOf(ProblemError);
    expect(malformed).toMatchObject({ status: 400 });
    const missing = await backups
      .download('backup-20200101T000000000Z.db.gz')
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404 });
  });
});

describe('webhook summary', () => {
  test('every endpoint over the last hours, employee only', async () => {
    const customer = await svc.customer('c-hooks');
    const hook = await customer.webhooks.create({
      url: 'http://127.0.0.1:9/in',
      types: ['property.created'],
    });
    const summary = WebhookSummary.parse(await svc.employee.admin.webhookSummary({ hours: 48 }));
    expect(summary.endpoints).toContainEqual(
      expect.objectContaining({ id: hook.id, ownerId: 'c-hooks', attempted: 0, successRate: null }),
    );
    expect(Date.parse(summary.to) - Date.parse(summary.from)).toBe(48 * 3_600_000);
    const outOfRange = await svc.employee.admin.webhookSummary({ hours: 500 }).catch((e) => e);
    expect(outOfRange).toBeInstanceOf(ProblemError);
    expect(outOfRange).toMatchObject({ status: 400 });
  });
});

describe('auth', () => {
  test('a customer is refused the admin endpoints', async () => {
    const customer = await svc.customer('c-1');
    await expect(customer.admin.jobs.list()).rejects.toMatchObject({
      status: 403,
      title: 'Forbidden',
    });
    await expect(customer.admin.audit()).rejects.toMatchObject({ status: 403 });
    for (const call of [
      () => customer.admin.backups.list(),
      () => customer.admin.backups.create(),
      () => customer.admin.webhookSummary(),
    ]) {
      const refused = await call().catch((e: unknown) => e);
      expect((refused as ProblemError).body).toEqual(problemOf(403));
    }
  });
});
