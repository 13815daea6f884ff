import { expect, test } from 'bun:test';
import { toolContext } from '@/audit/record';
import { AuditPage } from '@/audit/schemas';
import { run as pruneAuditLog } from '@/workers/audit-retention';
import { type EventsTestApp, storesUnderTest } from '../events/stores';
import { expectAuthGuards } from '../support/auth-guards';
import { manualClock } from '../support/harness';

const DAY_MS = 24 * 60 * 60 * 1000;
const at = (days: number) => toolContext(Date.UTC(2026, 0, 1) + days * DAY_MS);

async function withEvents(app: EventsTestApp) {
  await app.recordAudit({ ...at(0), actor: 'ana' }, { action: 'plan.created', target: '3' });
  await app.recordAudit({ ...at(1), actor: 'bob' }, { action: 'plan.changed', target: '3' });
  await app.recordAudit(
    { ...at(2), actor: 'ana', ip: '203.0.113.9', userAgent: 'ü'.repeat(600) },
    { action: 'customer_plan.set', subject: 'c1', details: { planId: 7, was: null, ok: true } },
  );
  await app.recordAudit({ ...at(3), actor: 'ana' }, { action: 'plan.deleted', target: '3' });
  return {
    employee: await app.tokenFor('employee-1', 'employee'),
    customer: await app.tokenFor('c1'),
  };
}

const actions = (page: AuditPage) => page.events.map((event) => event.action);

for (const store of storesUnderTest()) {
  store.describe('the audit log on the audit store', () => {
    const search = async (app: EventsTestApp, token: string, query: string) => {
      const res = await app.request<AuditPage>('GET', `/admin/audit${query}`, { token });
      expect(res.status).toBe(200);
      return AuditPage.parse(res.body);
    };

    test('happy: GET /admin/audit newest first; filters combine; every field as written', async () => {
      const app = await store.app();
      const { employee } = await withEvents(app);
      const all = await search(app, employee, '');
      expect(actions(all)).toEqual([
        'plan.deleted',
        'customer_plan.set',
        'plan.changed',
        'plan.created',
      ]);
      expect(all.events[1]).toEqual({
        id: '3',
        at: '2026-01-03T00:00:00.000Z',
        action: 'customer_plan.set',
        actor: 'ana',
        subject: 'c1',
        target: null,
        ip: '203.0.113.9',
        userAgent: 'ü'.repeat(256),
        requestId: null,
        details: { planId: 7, was: null, ok: true },
        count: 1,
        lastAt: null,
      });
      expect(actions(await search(app, employee, '?actor=ana'))).toEqual([
        'plan.deleted',
        'customer_plan.set',
        'plan.created',
      ]);
      expect(actions(await search(app, employee, '?subject=c1'))).toEqual(['customer_plan.set']);
      expect(actions(await search(app, employee, '?action=plan.changed'))).toEqual([
        'plan.changed',
      ]);
      const range = '?from=2026-01-02T00:00:00Z&to=2026-01-03T00:00:00%2B00:00&actor=ana';
      expect(actions(await search(app, employee, range))).toEqual(['customer_plan.set']);
      // Case matters, as in SQLite: another spelling of an actor is another actor.
      expect(actions(await search(app, employee, '?actor=ANA'))).toEqual([]);
      // PostgreSQL text cannot hold NUL: such a filter matches nothing there without a query.
      expect(actions(await search(app, employee, '?actor=an%00a'))).toEqual([]);
    });

    test('happy: keyset pages follow nextCursor; events written meanwhile never shift a page', async () => {
      const app = await store.app();
      const { employee } = await withEvents(app);
      const first = await search(app, employee, '?limit=3');
      expect(first.events.map((event) => event.id)).toEqual(['4', '3', '2']);
      expect(first.nextCursor).toBe('2');
      await app.recordAudit({ ...at(9), actor: 'ana' }, { action: 'plan.created' });
      const second = await search(app, employee, `?limit=3&cursor=${first.nextCursor}`);
      expect(second.events.map((event) => event.id)).toEqual(['1']);
      expect(second.nextCursor).toBeNull();
    });

    test("happy: GET /auth/security-log answers the caller's own events only", async () => {
      const app = await store.app();
      const { customer } = await withEvents(app);
      const res = await app.request<AuditPage>('GET', '/auth/security-log', { token: customer });
      expect(res.status).toBe(200);
      expect(actions(AuditPage.parse(res.body))).toEqual(['customer_plan.set']);
    });

    test('happy: audit-retention deletes the events older than AUDIT_RETENTION_DAYS', async () => {
      const clock = manualClock(Date.UTC(2026, 0, 31));
      const app = await store.app({ clock, env: { AUDIT_RETENTION_DAYS: '28' } });
      const { employee } = await withEvents(app);
      expect(await pruneAuditLog(app.deps)).toMatchObject({ deleted: 2 });
      expect(actions(await search(app, employee, ''))).toEqual([
        'plan.deleted',
        'customer_plan.set',
      ]);
      expect(await pruneAuditLog(app.deps)).toMatchObject({ deleted: 0 });
    });

    test('error: a bad query is a 400 problem', async () => {
      const app = await store.app();
      const { employee } = await withEvents(app);
      for (const [query, name] of [
        ['?limit=0', 'limit'],
        ['?cursor=-1', 'cursor'],
        ['?action=nothing', 'action'],
        ['?actor=a&actor=b', 'actor'],
      ] as const) {
        const res = await app.request('GET', `/admin/audit${query}`, { token: employee });
        expect([query, res.status]).toEqual([query, 400]);
        const body = res.body as { invalidParams: { name: string }[] };
        expect(body.invalidParams.map((param) => param.name)).toEqual([name]);
      }
    });

    test('auth: no token → 401, a customer → 403', async () => {
      const app = await store.app();
      const { customer } = await withEvents(app);
      await expectAuthGuards(app, 'employee', ['GET /admin/audit'], { token: customer });
    });
  });
}
