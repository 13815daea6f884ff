import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { auditContextOf } from '@/api/request/audit';
import {
  EmployeeRateLimit,
  Plan,
  PlanAssignment,
  PlanIdParams,
  PlanInput,
  PlanList,
  SubParams,
} from '@/customer/admin/schemas';
import {
  assignPlan,
  createPlan,
  deletePlan,
  listPlans,
  planIdOf,
  setEmployeeLimit,
  updatePlan,
} from '@/customer/admin/service';
import { NoBody } from '../../responses';
import { commonResponses, Message } from '../schemas';
import { importRoutes } from './import';

const detail = (operationId: string, summary: string) => ({
  operationId,
  summary,
  tags: ['Customer API admin'],
});

/**
 * Employee-only administration of the customer API: plans,
 * plan assignment, employee limits and transaction import. Every write
 * drops the limiter's cached policies so the next request sees it.
 */
export const adminRoutes = (deps: ApiDeps) => {
  const { auth, db, limiter, idempotency, clock, config } = deps;
  /** The employee's request, as the audit log records it. */
  const by = (request: Request, caller: { sub: string }) =>
    auditContextOf(request, config, clock(), caller.sub);
  return new Elysia({ name: 'customer-admin', prefix: '/admin' })
    .use(auth)
    .use(idempotency)
    .get('/plans', () => ({ data: listPlans(db) }), {
      auth: 'employee',
      response: { 200: PlanList, ...commonResponses },
      detail: detail('listPlans', 'List the stored plans'),
    })
    .post(
      '/plans',
      ({ body, caller, request, status }) => {
        const plan = createPlan(db, body, by(request, caller));
        limiter.invalidate();
        return status(201, plan);
      },
      {
        auth: 'employee',
        idempotent: true,
        body: PlanInput,
        response: { 201: Plan, ...commonResponses },
        detail: detail('createPlan', 'Create a plan with calendar windows'),
      },
    )
    .put(
      '/plans/:id',
      ({ params, body, caller, request }) => {
        const plan = updatePlan(db, planIdOf(params.id), body, by(request, caller));
        limiter.invalidate();
        return plan;
      },
      {
        auth: 'employee',
        params: PlanIdParams,
        body: PlanInput,
        response: { 200: Plan, 404: Message, ...commonResponses },
        detail: detail('updatePlan', 'Replace a plan'),
      },
    )
    .delete(
      '/plans/:id',
      ({ params, caller, request, set }) => {
        deletePlan(db, planIdOf(params.id), by(request, caller));
        limiter.invalidate();
        set.status = 204;
        return null;
      },
      {
        auth: 'employee',
        params: PlanIdParams,
        response: { 204: NoBody, 404: Message, ...commonResponses },
        detail: detail('deletePlan', 'Delete a plan; its customers return to Standard'),
      },
    )
    .put(
      '/customers/:sub/plan',
      ({ params, body, caller, request, set }) => {
        assignPlan(db, params.sub, body.planId, by(request, caller));
        limiter.invalidate();
        set.status = 204;
        return null;
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
        setEmployeeLimit(db, params.sub, body.perMinute, by(request, caller));
        limiter.invalidate();
        set.status = 204;
        return null;
      },
      {
        auth: 'employee',
        params: SubParams,
        body: EmployeeRateLimit,
        response: { 204: NoBody, ...commonResponses },
        detail: detail(
          'setEmployeeRateLimit',
          "Set an employee's own per-minute limit (at least 2000)",
        ),
      },
    )
    .use(importRoutes(deps));
};
