/**
 * GET /admin/status: the backends, the database's size and the instances
 * the console's Overview shows. Runs on PostgreSQL too (TEST_DATABASE=postgres).
 */

import { describe, expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import { ServiceStatus } from '@/api/health/schemas';
import { MINUTE_MS } from '@/usage/store';
import { expectAuthGuards } from '../support/auth-guards';
import { createTestApp, DATABASE_BACKEND, manualClock } from '../support/harness';

const START = Date.UTC(2026, 4, 1, 10, 0, 30);
const minuteOf = (t: number) => t - (t % MINUTE_MS);

/** A row as another instance would have written it for the minute starting at `start`. */
const otherInstanceRow = (instance: string, start: number) => ({
  resolution: 'minute' as const,
  series: 'route:/health',
  start,
  instance,
  requests: 1,
  errors: 0,
  latency: [1],
});

describe('happy', () => {
  test('backends, database size and the instances seen in the last 15 minutes', async () => {
    const clock = manualClock(START);
    const app = createTestApp({ clock });
    expect((await app.request('GET', '/health')).status).toBe(200);
    await app.deps.usage.store.save([
      otherInstanceRow('peer-recent', minuteOf(START) - 10 * MINUTE_MS),
      otherInstanceRow('peer-gone', minuteOf(START) - 20 * MINUTE_MS),
    ]);
    const token = await app.tokenFor('ops', 'employee');
    const res = await app.request('GET', '/admin/status', { token });
    expect(res.status).toBe(200);
    const status = ServiceStatus.parse(res.body);
    expect(status.backends).toEqual([{ name: DATABASE_BACKEND, state: 'ok' }]);
    expect(status.instance).toBe(app.deps.instance);
    expect(status.instances).toEqual({
      live: 1,
      seen: [app.deps.instance, 'peer-recent'].sort(),
      seenMinutes: 15,
    });
    if (DATABASE_BACKEND === 'sqlite') {
      const path = app.db.$client.filename;
      expect(status.database.sizeBytes).toBe(statSync(path).size);
      // The log only grows between the answer and this check (the read's own figures are written).
      expect(status.database.walSizeBytes).toBeGreaterThan(0);
      expect(status.database.walSizeBytes).toBeLessThanOrEqual(statSync(`${path}-wal`).size);
    } else {
      expect(status.database.sizeBytes).toBeGreaterThan(0);
      expect(status.database.walSizeBytes).toBeNull();
    }
  });
});

describe('auth', () => {
  test('anonymous 401, a customer 403', async () => {
    await expectAuthGuards(createTestApp(), 'employee', ['GET /admin/status']);
  });
});
