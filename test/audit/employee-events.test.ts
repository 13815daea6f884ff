import { describe, expect, test } from 'bun:test';
import { toolContext } from '@/audit/record';
import { AdminAuditPage, AuditPage } from '@/audit/schemas';
import { AUDIT_ACTIONS } from '@/db/stored-values';
import { run as pruneAuditLog } from '@/workers/audit-retention';
import { fullPage } from '../content/factory';
import { addProperty } from '../listings/support';
import { expectAuthGuards } from '../support/auth-guards';
import { badRequest, createTestApp, manualClock } from '../support/harness';
import { BACKUPS_COPY_THE_FILE, sqliteOnly } from '../support/postgres-mode';
import { appAuditRows, eventsWrittenBy } from './support';

const EMPLOYEE = 'employee-7';
const DAY_MS = 24 * 60 * 60 * 1000;

async function setup() {
  const clock = manualClock();
  const ctx = createTestApp({ clock });
  return {
    ...ctx,
    employee: await ctx.tokenFor(EMPLOYEE, 'employee'),
    customer: await ctx.tokenFor('customer-1', 'customer'),
  };
}

/** Runs a request and asserts its status; answers the events it wrote. */
async function audited(
  ctx: Awaited<ReturnType<typeof setup>>,
  method: string,
  path: string,
  status: number,
  body?: unknown,
) {
  let answer: unknown;
  const written = await eventsWrittenBy(ctx, async () => {
    const res = await ctx.request(method, path, { token: ctx.employee, body });
    expect(res.status).toBe(status);
    answer = res.body;
  });
  return { written, answer };
}

describe('audit log: every employee action leaves exactly one event by that employee', () => {
  test('plans created, changed, deleted; a customer plan set; an employee limit set', async () => {
    const ctx = await setup();
    const plan = { name: 'Pro', slug: 'pro', limits: { minute: 100 } };
    const created = await audited(ctx, 'POST', '/api/v1/admin/plans', 201, plan);
    const id = String((created.answer as { id: number }).id);
    const steps = [
      created.written,
      (await audited(ctx, 'PUT', `/api/v1/admin/plans/${id}`, 200, { ...plan, name: 'Pro+' }))
        .written,
      (await audited(ctx, 'PUT', '/api/v1/admin/customers/customer-1/plan', 204, { planId: +id }))
        .written,
      (
        await audited(ctx, 'PUT', '/api/v1/admin/employees/emp-2/rate-limit', 204, {
          perMinute: 3000,
        })
      ).written,
      (await audited(ctx, 'DELETE', `/api/v1/admin/plans/${id}`, 204)).written,
    ];
    for (const written of steps) {
      expect(written).toHaveLength(1);
      expect(written[0]!.actorId).toBe(EMPLOYEE);
    }
    expect(steps.map((written) => written[0]!.action)).toEqual([
      'plan.created',
      'plan.changed',
      'customer_plan.set',
      'employee_limit.set',
      'plan.deleted',
    ]);
    expect(steps[1]![0]).toMatchObject({ target: id, details: { name: 'Pro+' } });
    expect(steps[2]![0]).toMatchObject({ subjectId: 'customer-1', target: id });
    expect(steps[3]![0]).toMatchObject({ subjectId: 'emp-2', details: { perMinute: 3000 } });
  });

  test('owner changed, static page written and deleted, job run', async () => {
    const ctx = await setup();
    const property = await addProperty(ctx, { ownerId: 'owner-a' });
    const owner = await audited(ctx, 'PUT', `/listings/properties/${property}/owner`, 204, {
      ownerId: 'owner-b',
    });
    expect(owner.written).toHaveLength(1);
    expect(owner.written[0]).toMatchObject({
      action: 'property.owner_changed',
      actorId: EMPLOYEE,
      subjectId: 'owner-b',
      target: property,
      details: { previousOwnerId: 'owner-a', ownerId: 'owner-b' },
    });

    const page = fullPage();
    const written = await audited(ctx, 'PUT', '/content/static-pages/about', 201, page);
    const replaced = await audited(ctx, 'PUT', '/content/static-pages/about', 200, page);
    const deleted = await audited(ctx, 'DELETE', '/content/static-pages/about?language=en', 204);
    expect([written, replaced, deleted].map((step) => step.written)).toEqual([
      [expect.objectContaining({ action: 'static_page.written', actorId: EMPLOYEE })],
      [expect.objectContaining({ action: 'static_page.written', details: expect.any(Object) })],
      [expect.objectContaining({ action: 'static_page.deleted', target: 'about' })],
    ]);
    expect(written.written[0]!.details).toEqual({ language: 'en', created: true });
    expect(replaced.written[0]!.details).toEqual({ language: 'en', created: false });

    const job = await audited(ctx, 'POST', '/admin/jobs/plan-window-reset/run', 200);
    expect(job.written).toEqual([
      expect.objectContaining({
        action: 'job.run',
        actorId: EMPLOYEE,
        target: 'plan-window-reset',
        details: expect.objectContaining({ outcome: 'succeeded' }),
      }),
    ]);
  });

  sqliteOnly.test(BACKUPS_COPY_THE_FILE, 'a backup taken', async () => {
    const ctx = await setup();
    const backup = await audited(ctx, 'POST', '/admin/backups', 201);
    const name = (backup.answer as { details: { name: string } }).details.name;
    expect(backup.written).toEqual([
      expect.objectContaining({ action: 'backup.created', actorId: EMPLOYEE, target: name }),
    ]);
  });

  describe('a failed action leaves no event', () => {
    test('a taken slug (422), an unknown plan (404), an unknown page (404), an unknown job (404), a customer (403)', async () => {
      const ctx = await setup();
      const plan = { name: 'Pro', slug: 'pro', limits: {} };
      await audited(ctx, 'POST', '/api/v1/admin/plans', 201, plan);
      const other = await audited(ctx, 'POST', '/api/v1/admin/plans', 201, {
        ...plan,
        slug: 'other',
      });
      const otherId = (other.answer as { id: number }).id;
      const failures = [
        await audited(ctx, 'POST', '/api/v1/admin/plans', 422, plan),
        await audited(ctx, 'PUT', `/api/v1/admin/plans/${otherId}`, 422, plan),
        await audited(ctx, 'DELETE', '/api/v1/admin/plans/999', 404),
        await audited(ctx, 'PUT', '/api/v1/admin/customers/c/plan', 422, { planId: 999 }),
        await audited(ctx, 'DELETE', '/content/static-pages/nothing?language=en', 404),
        await audited(ctx, 'POST', '/admin/jobs/no-such-job/run', 404),
        await audited(ctx, 'PUT', `/listings/properties/${crypto.randomUUID()}/owner`, 404, {
          ownerId: 'x',
        }),
      ];
      for (const failure of failures) expect(failure.written).toEqual([]);
      const byCustomer = await eventsWrittenBy(ctx, async () => {
        const res = await ctx.request('POST', '/api/v1/admin/plans', {
          token: ctx.customer,
          body: { ...plan, slug: 'mine' },
        });
        expect(res.status).toBe(403);
      });
      expect(byCustomer).toEqual([]);
    });
  });
});

describe('GET /admin/audit', () => {
  async function withEvents() {
    const ctx = await setup();
    const at = (days: number) => ({ ...toolContext(Date.UTC(2026, 0, 1) + days * DAY_MS) });
    await ctx.deps.stores.audit.record(
      { ...at(0), actor: 'ana' },
      { action: 'plan.created', target: '3' },
    );
    await ctx.deps.stores.audit.record(
      { ...at(1), actor: 'bob' },
      { action: 'plan.changed', target: '3' },
    );
    await ctx.deps.stores.audit.record(
      { ...at(2), actor: 'ana' },
      { action: 'customer_plan.set', subject: 'c1' },
    );
    await ctx.deps.stores.audit.record(
      { ...at(3), actor: 'ana' },
      { action: 'plan.deleted', target: '3' },
    );
    return ctx;
  }
  const search = async (ctx: Awaited<ReturnType<typeof setup>>, query: string) => {
    const res = await ctx.request<AuditPage>('GET', `/admin/audit${query}`, {
      token: ctx.employee,
    });
    expect(res.status).toBe(200);
    return AuditPage.parse(res.body);
  };
  const actions = (page: AuditPage) => page.events.map((event) => event.action);

  test('happy: newest first; filters by actor, subject, action and time range combine', async () => {
    const ctx = await withEvents();
    expect(actions(await search(ctx, ''))).toEqual([
      'plan.deleted',
      'customer_plan.set',
      'plan.changed',
      'plan.created',
    ]);
    expect(actions(await search(ctx, '?actor=ana'))).toEqual([
      'plan.deleted',
      'customer_plan.set',
      'plan.created',
    ]);
    expect(actions(await search(ctx, '?subject=c1'))).toEqual(['customer_plan.set']);
    expect(actions(await search(ctx, '?action=plan.changed'))).toEqual(['plan.changed']);
    const range = '?from=2026-01-02T00:00:00Z&to=2026-01-03T00:00:00%2B00:00&actor=ana';
    expect(actions(await search(ctx, range))).toEqual(['customer_plan.set']);
  });

  test('happy: the page gives the email of each account its events name, and only those', async () => {
    const ctx = await withEvents();
    const made = await ctx.request<{ id: string }>('POST', '/admin/users', {
      token: ctx.employee,
      body: { email: 'Named@Example.com', password: 'a long enough password', role: 'customer' },
    });
    expect(made.status).toBe(201);
    const res = await ctx.request<AdminAuditPage>('GET', '/admin/audit', { token: ctx.employee });
    expect(res.status).toBe(200);
    const page = AdminAuditPage.parse(res.body);
    expect(page.events[0]).toMatchObject({
      action: 'account.created',
      actor: EMPLOYEE,
      subject: made.body.id,
    });
    // The employee's token and 'ana', 'bob', 'c1' name no account: no email for them.
    expect(page.emails).toEqual({ [made.body.id]: 'named@example.com' });
    // A page naming no account has an empty map, not a missing one.
    const none = await ctx.request<AdminAuditPage>('GET', '/admin/audit?actor=bob', {
      token: ctx.employee,
    });
    expect(none.body.emails).toEqual({});
    expect(none.body.events).toHaveLength(1);
  });

  test('happy: keyset pages follow nextCursor to the end', async () => {
    const ctx = await withEvents();
    const first = await search(ctx, '?limit=3');
    expect(first.events).toHaveLength(3);
    expect(first.nextCursor).toBe(first.events[2]!.id);
    const second = await search(ctx, `?limit=3&cursor=${first.nextCursor}`);
    expect(actions(second)).toEqual(['plan.created']);
    expect(second.nextCursor).toBeNull();
  });

  test.each([
    ['?limit=0', 'limit', 'must be an integer from 1 to 100 (got "0")'],
    ['?limit=101', 'limit', 'must be an integer from 1 to 100 (got "101")'],
    ['?limit=ten', 'limit', 'must be an integer from 1 to 100 (got "ten")'],
    ['?cursor=-1', 'cursor', 'must be the nextCursor of the previous page (got "-1")'],
    ['?action=nothing', 'action', `must be one of ${AUDIT_ACTIONS.join(', ')} (got "nothing")`],
    [
      '?from=yesterday',
      'from',
      `must be an ISO-8601 date-time with seconds and a zone, e.g. 2026-01-31T09:00:00Z (got "yesterday")`,
    ],
    [
      '?to=2026-01-01',
      'to',
      `must be an ISO-8601 date-time with seconds and a zone, e.g. 2026-01-31T09:00:00Z (got "2026-01-01")`,
    ],
    ['?unknown=1', 'unknown', 'is not a parameter of this operation'],
    ['?actor=a&actor=b', 'actor', 'is given more than once'],
  ])('error: %s → 400 problem naming %s', async (query, name, reason) => {
    const ctx = await withEvents();
    const res = await ctx.request('GET', `/admin/audit${query}`, { token: ctx.employee });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(badRequest([name, reason]));
  });

  test('auth: no token → 401, a customer → 403, whatever the query', async () => {
    const ctx = await withEvents();
    await expectAuthGuards(ctx, 'employee', ['GET /admin/audit?limit=0'], { token: ctx.customer });
  });
});

describe('audit-retention job', () => {
  test('deletes the events older than AUDIT_RETENTION_DAYS and keeps the rest', async () => {
    const clock = manualClock(Date.UTC(2026, 5, 1));
    const ctx = createTestApp({ clock, env: { AUDIT_RETENTION_DAYS: '30' } });
    const now = clock();
    for (const days of [40, 31, 29, 1]) {
      await ctx.deps.stores.audit.record(toolContext(now - days * DAY_MS), {
        action: 'job.run',
        target: `${days}`,
      });
    }
    expect(await pruneAuditLog(ctx.deps)).toMatchObject({ deleted: 2 });
    expect((await appAuditRows(ctx)).map((row) => row.target)).toEqual(['29', '1']);
    expect(await pruneAuditLog(ctx.deps)).toMatchObject({ deleted: 0 });
  });

  test('the log is append-only: an update is refused by the database', async () => {
    const ctx = createTestApp();
    await ctx.deps.stores.audit.record(toolContext(0), { action: 'job.run' });
    const update = "UPDATE audit_events SET action = 'sign_up'";
    const { postgres } = ctx.deps;
    if (postgres) await expect(postgres.unsafe(update)).rejects.toThrow('append-only');
    else expect(() => ctx.db.$client.run(update)).toThrow('append-only');
  });
});
