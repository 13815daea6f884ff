import { asc } from 'drizzle-orm';
import type { Db } from '@/db/sqlite/client';
import { type AuditAction, type AuditEventRow, auditEvents } from '@/db/sqlite/schema';
import { accountRowsOf } from '../accounts/stores';
import type { TestContext } from '../support/harness';

/** Every stored event, oldest first, optionally of one action. */
export function auditRows(db: Db, action?: AuditAction): AuditEventRow[] {
  const rows = db.select().from(auditEvents).orderBy(asc(auditEvents.id)).all();
  return action === undefined ? rows : rows.filter((row) => row.action === action);
}

/** Every event an app stored, oldest first, on SQLite or PostgreSQL, optionally of one action. */
export const appAuditRows = (ctx: TestContext, action?: AuditAction) =>
  accountRowsOf(ctx).auditRows(action);

/** Runs `action` and returns the events it wrote. */
export async function eventsWrittenBy(ctx: TestContext, action: () => Promise<unknown>) {
  const before = (await appAuditRows(ctx)).at(-1)?.id ?? 0;
  await action();
  return (await appAuditRows(ctx)).filter((row) => row.id > before);
}

/** The one event a step wrote (fails unless there is exactly one). */
export function onlyEvent(written: AuditEventRow[]): AuditEventRow {
  if (written.length !== 1) {
    throw new Error(`expected one event, got ${written.map((row) => row.action).join(', ')}`);
  }
  return written[0]!;
}
