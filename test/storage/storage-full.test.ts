/**
 * A write the database cannot store for want of space: run on a real tmpfs
 * of 4 MiB that the test mounts (needs root; skipped with the reason
 * otherwise) and fills with a file, never on a stubbed free-space reading.
 */
import { afterAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { z } from 'zod';
import { Health } from '@/api/health/schemas';
import { propertyBody } from '../listings/support';
import { createTestApp, problemOf } from '../support/harness';
import { describeOnSmallDisk, smallDisk } from '../support/small-disk';

/** The new property's id, from the Location of its 201. */
const idOf = (headers: Headers) => headers.get('location')!.split('/').pop()!;

const FULL_DETAIL =
  'Storage is full: the change was not stored and nothing of it was written; retry after Retry-After seconds';

describeOnSmallDisk('a full disk under SQLite', () => {
  const disk = smallDisk(4);
  afterAll(() => disk.unmount());
  const ctx = createTestApp({
    env: {
      DATABASE_PATH: join(disk.dir, 'app.db'),
      BACKUP_DIR: join(disk.dir, 'backups'),
      DISK_FREE_THRESHOLD_MB: '1',
    },
  });
  const acknowledged: string[] = [];
  const plans: number[] = [];

  test('room enough: /health ok, the disk shown', async () => {
    ctx.deps.disk.read();
    const health = await ctx.request<z.infer<typeof Health>>('GET', '/health');
    expect(health.status).toBe(200);
    expect(Health.parse(health.body).status).toBe('ok');
    expect(health.body.disk.state).toBe('ok');
    expect(health.body.disk.volumes.map(({ name }) => name)).toEqual(['database', 'backups']);
    expect(health.body.disk.volumes[0]!.totalBytes).toBe(4 * 1024 * 1024);
  });

  test('under the threshold: /health degraded (200), writes still stored', async () => {
    disk.fill(600 * 1024);
    ctx.deps.disk.read();
    const health = await ctx.request<z.infer<typeof Health>>('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('degraded');
    expect(health.body.disk.state).toBe('low');
    expect(health.body.disk.volumes[0]!.freeBytes).toBeLessThan(1024 * 1024);
  });

  test('full: every refused write is a 507 in its family, reads answer, /health fails', async () => {
    const employee = await ctx.tokenFor('employee-1', 'employee');
    disk.fill(160 * 1024);
    // Properties (problem details) and plans (the customer API's family) in turn until each met a full disk.
    let propertiesRefused = 0;
    let plansRefused = 0;
    for (let i = 0; i < 400 && (propertiesRefused < 2 || plansRefused < 2); i++) {
      const property = await ctx.request('POST', '/listings/properties', {
        token: employee,
        body: propertyBody({ location: { ...propertyBody().location, addressLine1: `No ${i}` } }),
      });
      if (property.status === 201) acknowledged.push(idOf(property.headers));
      else {
        propertiesRefused++;
        expect(property.status).toBe(507);
        expect(property.headers.get('retry-after')).toBe('30');
        expect(property.body).toEqual(problemOf(507, FULL_DETAIL));
        expect(property.body).toMatchObject({ title: 'Insufficient Storage' });
      }
      // With an Idempotency-Key: its claim and its freeing are writes too.
      const plan = await ctx.request('POST', '/api/v1/admin/plans', {
        token: employee,
        headers: { 'idempotency-key': `plan-${i}` },
        body: { name: `Plan ${i}`, slug: `plan-${i}`, limits: { minute: 500 } },
      });
      if (plan.status === 201) plans.push((plan.body as { id: number }).id);
      else {
        plansRefused++;
        expect(plan.status).toBe(507);
        expect(plan.headers.get('retry-after')).toBe('30');
        expect(plan.body).toEqual({
          message: 'Insufficient Storage: the change was not stored; retry later.',
        });
      }
      // Once full, stays full: nothing the rollback of a refused write gave back is left.
      if (propertiesRefused + plansRefused > 0) disk.fill(0);
    }
    expect(propertiesRefused).toBeGreaterThanOrEqual(2);
    expect(plansRefused).toBeGreaterThanOrEqual(2);
    expect(acknowledged.length).toBeGreaterThan(0);
    const read = await ctx.request('GET', `/listings/properties/${acknowledged[0]}`, {
      token: employee,
    });
    expect(read.status).toBe(200);

    const health = await ctx.request<{ detail: string }>('GET', '/health');
    expect(health.status).toBe(503);
    expect(health.body.detail).toBe(
      "Writes refused: the database's storage is full; free space or make it writable (docs/operations.md)",
    );
    const metrics = await ctx.request<string>('GET', '/metrics', { token: employee });
    expect(metrics.text).toContain('listings_disk_writes_refused 1\n');
    expect(metrics.text).toMatch(/listings_disk_refused_writes_total ([4-9]|\d\d)/);
    expect(metrics.text).toContain('listings_disk_free_bytes{volume="database"}');
  });

  test('space freed: writes succeed with no restart, /health ok, nothing acknowledged lost', async () => {
    const employee = await ctx.tokenFor('employee-1', 'employee');
    disk.free();
    ctx.deps.disk.read();
    const health = await ctx.request<z.infer<typeof Health>>('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
    expect(health.body.disk.refusedWrites).toBeGreaterThanOrEqual(4);
    const created = await ctx.request('POST', '/listings/properties', {
      token: employee,
      body: propertyBody(),
    });
    expect(created.status).toBe(201);
    for (const id of [...acknowledged, idOf(created.headers)]) {
      const read = await ctx.request('GET', `/listings/properties/${id}`, { token: employee });
      expect(read.status).toBe(200);
    }
    const stored = await ctx.request<{ data: { id: number }[] }>('GET', '/api/v1/admin/plans', {
      token: employee,
    });
    expect(stored.body.data.map(({ id }) => id)).toEqual(expect.arrayContaining(plans));
  });
});
