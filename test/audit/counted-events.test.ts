import { describe, expect, test } from 'bun:test';
import { DEFAULT_AUDIT_ROWS_PER_HOUR } from '@/audit/operations';
import { type AuditContext, type AuditEntry, toolContext } from '@/audit/record';
import { run as pruneAuditLog } from '@/workers/audit-retention';
import { createTestApp, manualClock } from '../support/harness';
import { appAuditRows } from './support';

/** Counted events on the app's own audit store (SQLite, or PostgreSQL with TEST_DATABASE=postgres). */
const HOUR_MS = 60 * 60 * 1000;
const start = Date.UTC(2026, 5, 1);
const refusal: AuditEntry = {
  action: 'sign_in.refused',
  subject: 'u1',
  counter: { key: 'account u1', windowMs: 15 * 60 * 1000 },
};
const caller = (at: number): AuditContext => ({
  ...toolContext(at),
  ip: '192.0.2.7',
  userAgent: 'agent',
});

function setup() {
  const clock = manualClock(start);
  const ctx = createTestApp({ clock });
  /** Runs raw SQL on the app's database; rejects as the database refuses. */
  const run = async (statement: string) => {
    const { postgres } = ctx.deps;
    if (postgres) await postgres.unsafe(statement);
    else ctx.db.$client.run(statement);
  };
  return { ...ctx, clock, run };
}

describe('counted events', () => {
  test('happy: repeats of a counter in a window add to one event; its last time moves', async () => {
    const ctx = setup();
    for (const at of [start, start + 1000, start + 2000]) {
      await ctx.deps.stores.audit.record(caller(at), refusal);
    }
    const rows = await appAuditRows(ctx, 'sign_in.refused');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      count: 3,
      at: new Date(start),
      lastAt: new Date(start + 2000),
    });
  });

  test('the log stays append-only but for a counted event’s count and last time', async () => {
    const ctx = setup();
    await ctx.deps.stores.audit.record(caller(start), refusal);
    await ctx.deps.stores.audit.record(toolContext(start), { action: 'job.run' });
    // What the counting itself does passes the trigger.
    await ctx.run(
      'UPDATE audit_events SET count = count + 1, last_at = at + 1 WHERE counter_key IS NOT NULL',
    );
    for (const change of [
      "user_agent = 'forged'",
      'details = \'{"forged":true}\'',
      'count = 0',
      "action = 'sign_up'",
      'counter_key = NULL',
    ]) {
      await expect(
        ctx.run(`UPDATE audit_events SET ${change} WHERE counter_key IS NOT NULL`),
      ).rejects.toThrow('append-only');
    }
    await expect(
      ctx.run('UPDATE audit_events SET count = count + 1 WHERE counter_key IS NULL'),
    ).rejects.toThrow('append-only');
    const rows = await appAuditRows(ctx);
    expect(rows.map((row) => [row.action, row.count, row.userAgent])).toEqual([
      ['sign_in.refused', 2, 'agent'],
      ['job.run', 1, null],
    ]);
  });

  test("an employee's or a tool's actions are never counted", async () => {
    const ctx = setup();
    for (let i = 0; i <= DEFAULT_AUDIT_ROWS_PER_HOUR; i++) {
      await ctx.deps.stores.audit.record(toolContext(start + i), { action: 'job.run' });
    }
    const rows = await appAuditRows(ctx, 'job.run');
    expect(rows).toHaveLength(DEFAULT_AUDIT_ROWS_PER_HOUR + 1);
    expect(rows.every((row) => row.count === 1 && row.counterKey === null)).toBe(true);
  });

  test('audit-retention forgets the counters of ended windows', async () => {
    const ctx = setup();
    await ctx.deps.stores.audit.record(caller(start), { action: 'sign_out', subject: 'u1' });
    await ctx.deps.stores.audit.record(caller(start), { action: 'sign_out', subject: 'u2' });
    expect(await pruneAuditLog(ctx.deps)).toMatchObject({ countersDeleted: 0 });
    ctx.clock.advance(HOUR_MS);
    expect(await pruneAuditLog(ctx.deps)).toMatchObject({ deleted: 0, countersDeleted: 2 });
    // The events themselves stay for AUDIT_RETENTION_DAYS.
    expect(await appAuditRows(ctx, 'sign_out')).toHaveLength(2);
  });
});
