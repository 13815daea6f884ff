import { afterAll, describe, expect, test } from 'bun:test';
import { createLogger } from '@/logger';
import { DiskMonitor } from '@/storage/monitor';
import { createTestApp, manualClock } from '../support/harness';
import { describeOnSmallDisk, smallDisk } from '../support/small-disk';

/** A logger that keeps its lines, and the messages it wrote at `level`. */
function capturingLogger() {
  const lines: { level: string; msg: string }[] = [];
  const logger = createLogger('info', (line) => lines.push(JSON.parse(line)));
  const said = (level: string) => lines.filter((l) => l.level === level).map((l) => l.msg);
  return { logger, said };
}

/** The audit events of `action` the app's log holds. */
async function auditedCount(ctx: ReturnType<typeof createTestApp>, action: string) {
  const employee = await ctx.tokenFor('employee-1', 'employee');
  const page = await ctx.request<{ events: unknown[] }>('GET', `/admin/audit?action=${action}`, {
    token: employee,
  });
  return page.body.events.length;
}

describeOnSmallDisk('the disk monitor on a 2 MiB tmpfs', () => {
  const disk = smallDisk(2);
  afterAll(() => disk.unmount());
  const ctx = createTestApp();
  const { logger, said } = capturingLogger();
  const monitor = new DiskMonitor({
    volumes: [{ name: 'database', path: disk.dir }],
    thresholdBytes: 1024 * 1024,
    ...{ audit: ctx.deps.stores.audit, logger, clock: ctx.clock },
  });

  test('one warning and one audit event per change of state, however many readings and refusals', async () => {
    expect(monitor.status().state).toBe('ok');
    disk.fill(512 * 1024);
    for (let i = 0; i < 3; i++) monitor.read();
    expect(monitor.status().state).toBe('low');
    disk.fill(0);
    for (let i = 0; i < 5; i++) expect(monitor.refused('full')).toBe('full');
    monitor.read();
    expect(monitor.status()).toMatchObject({ state: 'refusing', refusedWrites: 5 });
    expect(said('warn')).toEqual(['disk space low', 'writes refused: storage full or read-only']);

    disk.free();
    monitor.read();
    monitor.read();
    expect(monitor.status().state).toBe('ok');
    expect(said('info')).toEqual(['disk space recovered']);
    await monitor.stop();
    expect(await auditedCount(ctx, 'disk.low')).toBe(1);
    expect(await auditedCount(ctx, 'disk.full')).toBe(1);
    expect(await auditedCount(ctx, 'disk.recovered')).toBe(1);
  });
});

describe('the disk monitor without a local database (PostgreSQL)', () => {
  test('a refused write keeps the state refusing for 30 s after the last one', async () => {
    const ctx = createTestApp();
    const clock = manualClock();
    const { logger, said } = capturingLogger();
    const monitor = new DiskMonitor({
      volumes: [],
      thresholdBytes: 1024,
      ...{ audit: ctx.deps.stores.audit, logger, clock },
    });
    expect(monitor.refused('full')).toBe('full');
    clock.advance(20_000);
    monitor.refused('full');
    clock.advance(29_000);
    monitor.read();
    expect(monitor.status().state).toBe('refusing');
    clock.advance(1_000);
    monitor.read();
    expect(monitor.status()).toMatchObject({ state: 'ok', refusedWrites: 2 });
    expect(said('warn')).toEqual(['writes refused: storage full or read-only']);
    await monitor.stop();
  });
});
