import { describe, expect, test } from 'bun:test';
import { ConfigError, parseConfig } from '@/config';
import { workerJobs } from '@/workers';
import { assertValidJobs } from '@/workers/job';
import { createTestApp } from '../support/harness';

const VARIABLES = [
  'JOB_PLAN_WINDOW_RESET_CRON',
  'JOB_UNIT_COUNTER_RECONCILE_CRON',
  'JOB_STATIC_PAGE_CACHE_WARM_CRON',
  'JOB_EVENTS_PRUNE_CRON',
  'JOB_WEBHOOK_DELIVERY_CRON',
  'BACKUP_CRON',
  'JOB_AUDIT_RETENTION_CRON',
] as const;

describe('the job list', () => {
  test('names, default schedules and run-at-start; every schedule parses and every name is unique', () => {
    const jobs = workerJobs(createTestApp().deps);
    expect(jobs.map(({ name, pattern, runAtStart }) => ({ name, pattern, runAtStart }))).toEqual([
      { name: 'plan-window-reset', pattern: '* * * * *', runAtStart: undefined },
      { name: 'unit-counter-reconcile', pattern: '*/5 * * * *', runAtStart: undefined },
      { name: 'static-page-cache-warm', pattern: '*/10 * * * *', runAtStart: true },
      { name: 'events-prune', pattern: '17 * * * *', runAtStart: undefined },
      { name: 'webhook-delivery', pattern: '*/10 * * * * *', runAtStart: undefined },
      { name: 'mail-delivery', pattern: '*/10 * * * * *', runAtStart: true },
      { name: 'database-backup', pattern: '0 3 * * *', runAtStart: undefined },
      { name: 'audit-retention', pattern: '30 3 * * *', runAtStart: undefined },
    ]);
    expect(new Set(jobs.map((job) => job.name)).size).toBe(jobs.length);
    expect(() => assertValidJobs(jobs)).not.toThrow();
  });

  test('schedules follow the JOB_*_CRON variables', () => {
    const { deps } = createTestApp({
      env: {
        JOB_PLAN_WINDOW_RESET_CRON: '*/2 * * * *',
        JOB_UNIT_COUNTER_RECONCILE_CRON: '30 */15 * * * *',
        JOB_STATIC_PAGE_CACHE_WARM_CRON: '@hourly',
        JOB_EVENTS_PRUNE_CRON: '0 4 * * *',
        JOB_WEBHOOK_DELIVERY_CRON: '*/30 * * * * *',
        JOB_MAIL_DELIVERY_CRON: '*/20 * * * * *',
        BACKUP_CRON: '15 2 * * 0',
        JOB_AUDIT_RETENTION_CRON: '45 4 * * *',
      },
    });
    expect(workerJobs(deps).map((job) => job.pattern)).toEqual([
      '*/2 * * * *',
      '30 */15 * * * *',
      '@hourly',
      '0 4 * * *',
      '*/30 * * * * *',
      '*/20 * * * * *',
      '15 2 * * 0',
      '45 4 * * *',
    ]);
  });
});

describe('error: a bad schedule stops configuration parsing', () => {
  test.each(
    VARIABLES.flatMap((name) => [
      [name, 'every minute'],
      [name, '* * * *'],
      [name, '61 * * * *'],
    ]),
  )('%s=%s', (name, value) => {
    expect(() => parseConfig({ DATABASE_PATH: ':memory:', [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ DATABASE_PATH: ':memory:', [name]: value })).toThrow(
      `${name}: not a valid cron pattern (e.g. "*/5 * * * *") (got "${value}")`,
    );
  });
});
