/**
 * What the service writes on its own keeps the threshold free: run on a real
 * tmpfs the test mounts (needs root; skipped with the reason otherwise).
 */
import { afterAll, expect, test } from 'bun:test';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { run as backup } from '@/workers/database-backup';
import { propertyBody } from '../listings/support';
import { createTestApp } from '../support/harness';
import { describeOnSmallDisk, smallDisk } from '../support/small-disk';

describeOnSmallDisk("the service's own writes on a small disk", () => {
  const disk = smallDisk(8);
  afterAll(() => disk.unmount());
  const backups = join(disk.dir, 'backups');
  const ctx = createTestApp({
    env: {
      DATABASE_PATH: join(disk.dir, 'app.db'),
      BACKUP_DIR: backups,
      DISK_FREE_THRESHOLD_MB: '2',
    },
  });
  const walBytes = () => statSync(`${ctx.config.databasePath}-wal`).size;
  const backupFiles = () => readdirSync(backups).filter((name) => !name.startsWith('.'));

  test('room enough: the backup job writes its backup', async () => {
    const result = await backup(ctx.deps);
    expect(result.skipped).toBeUndefined();
    expect(backupFiles()).toHaveLength(1);
  });

  test('a backup that would leave less than the threshold is skipped: warned, audited, in /admin/status', async () => {
    // Over the threshold now, but not once the snapshot and its compressed copy are written.
    disk.fill(2.5 * 1024 * 1024);
    ctx.deps.disk.read();
    expect(ctx.deps.disk.status().state).toBe('ok');
    const result = await backup(ctx.deps);
    expect(String(result.skipped)).toStartWith(`not enough free space in ${backups}: `);
    expect(backupFiles()).toHaveLength(1);
    const employee = await ctx.tokenFor('employee-1', 'employee');
    const status = await ctx.request<{ disk: { lastSkip: { job: string } | null } }>(
      'GET',
      '/admin/status',
      { token: employee },
    );
    expect(status.body.disk.lastSkip?.job).toBe('database-backup');
    await ctx.deps.disk.stop();
    const audit = await ctx.request<{ events: { action: string }[] }>(
      'GET',
      '/admin/audit?action=backup.skipped',
      { token: employee },
    );
    expect(audit.body.events.map(({ action }) => action)).toEqual(['backup.skipped']);
  });

  test('a reading that finds space low gives the WAL back to the file system', async () => {
    const employee = await ctx.tokenFor('employee-1', 'employee');
    for (let i = 0; i < 20; i++) {
      const res = await ctx.request('POST', '/listings/properties', {
        token: employee,
        body: propertyBody(),
      });
      expect(res.status).toBe(201);
    }
    expect(walBytes()).toBeGreaterThan(0);
    disk.fill(1.5 * 1024 * 1024);
    ctx.deps.disk.read();
    expect(ctx.deps.disk.status().state).toBe('low');
    expect(walBytes()).toBe(0);
  });
});
