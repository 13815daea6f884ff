import { describe, expect, test } from 'bun:test';
import { JobList, JobRunResult } from '@/api/admin/schemas';
import { Health } from '@/api/health/schemas';
import { AuditPage } from '@/audit/schemas';
import { serviceUnderTest } from './support';

const svc = await serviceUnderTest();

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

describe('auth', () => {
  test('a customer is refused the admin endpoints', async () => {
    const customer = await svc.customer('c-1');
    await expect(customer.admin.jobs.list()).rejects.toMatchObject({
      status: 403,
      title: 'Forbidden',
    });
    await expect(customer.admin.audit()).rejects.toMatchObject({ status: 403 });
  });
});
