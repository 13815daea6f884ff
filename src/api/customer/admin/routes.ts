import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { auditContextOf } from '@/api/request/audit';
import { EMPLOYEE_MINIMUM_PER_MINUTE } from '@/config/env';
import { planETag, planIdOf } from '@/customer/admin/operations';
import {
  EmployeeRateLimit,
  Plan,
  PlanAssignment,
  PlanIdParams,
  PlanInput,
  PlanList,
  SubParams,
} from '@/customer/admin/schemas';
import { fail } from '@/kernel/errors';
import { whenReady } from '@/kernel/maybe-promise';
import { ifMatchHeaders, withETag } from '../../docs/headers';
import { NoBody } from '../../responses';
import { commonResponses, Message } from '../schemas';
import { importRoutes } from './import-routes';

const detail = (operationId: string, summary: string) => ({
  operationId,
  summary,
  tags: ['Customer API admin'],
});

/** The plan writes' optional If-Match: the tag of the plan as listed. */
const IfMatch = ifMatchHeaders('the plan as GET /admin/plans lists it (as POST and PUT answer it)');
const IF_MATCH =
  'Honours If-Match with the ETag of the plan (or *): 412 when it has changed since (404 first when it is gone).';

/**
 * Employee-only administration of the customer API: plans,
 * plan assignment, employee limits and transaction import. Every write
 * drops the limiter's cached policies so the next request sees it.
 */
export const adminRoutes = (deps: ApiDeps) => {
  const {
    auth,
    stores: { customer },
    limiter,
    idempotency,
    clock,
    config,
  } = deps;
  /** The employee's request, as the audit log records it. */
  const by = (request: Request, caller: { sub: string }) =>
    auditContextOf(request, config, clock(), caller.sub);
  return new Elysia({ name: 'customer-admin', prefix: '/admin' })
    .use(auth)
    .use(idempotency)
    .get('/plans', () => whenReady(customer.listPlans(), (data) => ({ data })), {
      auth: 'employee',
      response: { 200: PlanList, ...commonResponses },
      detail: detail('listPlans', 'List the stored plans'),
    })
    .get(
      '/plans/:id',
      ({ params, set }) =>
        whenReady(customer.findPlan(planIdOf(params.id)), (plan) => {
          if (!plan) throw fail('plan.not_found');
          // The tag a PUT or DELETE of the plan takes as If-Match, held from the moment it is read.
          set.headers.etag = planETag(plan);
          return plan;
        }),
      {
        auth: 'employee',
        params: PlanIdParams,
        response: { 200: withETag(Plan), 404: Message, ...commonResponses },
        detail: {
          ...detail('getPlan', 'Read one stored plan'),
          description: 'Carries the ETag a PUT or DELETE of the plan takes as If-Match.',
        },
      },
    )
    .post(
      '/plans',
      ({ body, caller, request, set, status }) => {
        return whenReady(customer.createPlan(body, by(request, caller)), (plan) =>
          whenReady(limiter.invalidate(), () => {
            set.headers.etag = planETag(plan);
            return status(201, plan);
          }),
        );
      },
      {
        auth: 'employee',
        idempotent: true,
        body: PlanInput,
        response: { 201: withETag(Plan), ...commonResponses },
        detail: detail('createPlan', 'Create a plan with calendar windows'),
      },
    )
    .put(
      '/plans/:id',
      ({ params, body, caller, headers, request, set }) => {
        const id = planIdOf(params.id);
        const updated = customer.updatePlan(id, body, by(request, caller), headers['if-match']);
        return whenReady(updated, (plan) =>
          whenReady(limiter.invalidate(), () => {
            set.headers.etag = planETag(plan);
            return plan;
          }),
        );
      },
      {
        auth: 'employee',
        params: PlanIdParams,
        headers: IfMatch,
        body: PlanInput,
        response: { 200: withETag(Plan), 404: Message, 412: Message, ...commonResponses },
        detail: { ...detail('updatePlan', 'Replace a plan'), description: IF_MATCH },
      },
    )
    .delete(
      '/plans/:id',
      ({ params, caller, headers, request, set }) => {
        const id = planIdOf(params.id);
        const deleted = customer.deletePlan(id, by(request, caller), headers['if-match']);
        return whenReady(deleted, () => {
          set.status = 204;
          return whenReady(limiter.invalidate(), () => null);
        });
      },
      {
        auth: 'employee',
        params: PlanIdParams,
        headers: IfMatch,
        response: { 204: NoBody, 404: Message, 412: Message, ...commonResponses },
        detail: {
          ...detail('deletePlan', 'Delete a plan; its customers return to Standard'),
          description: IF_MATCH,
        },
      },
    )
    .put(
      '/customers/:sub/plan',
      ({ params, body, caller, request, set }) => {
        return whenReady(customer.assignPlan(params.sub, body.planId, by(request, caller)), () => {
          set.status = 204;
          return whenReady(limiter.invalidate(), () => null);
        });
      },
      {
        auth: 'employee',
        params: SubParams,
        body: PlanAssignment,
        response: { 204: NoBody, ...commonResponses },
        detail: detail('assignPlan', "Set a customer's plan (null for Standard)"),
      },
    )
    .put(
      '/employees/:sub/rate-limit',
      ({ params, body, caller, request, set }) => {
        const audit = by(request, caller);
        return whenReady(customer.setEmployeeLimit(params.sub, body.perMinute, audit), () => {
          set.status = 204;
          return whenReady(limiter.invalidate(), () => null);
        });
      },
      {
        auth: 'employee',
        params: SubParams,
        body: EmployeeRateLimit,
        response: { 204: NoBody, ...commonResponses },
        detail: detail(
          'setEmployeeRateLimit',
          `Set an employee's own per-minute limit (at least ${EMPLOYEE_MINIMUM_PER_MINUTE})`,
        ),
      },
    )
    .use(importRoutes(deps));
};
