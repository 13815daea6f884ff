import type { Caller } from '@/auth/tokens';
import type { BulkPropertyInput } from './properties/bulk';

/**
 * Per-owner storage quotas (QUOTA_* variables). Employees are exempt; a
 * refusal is a 409 naming the limit and writes nothing. Each check counts
 * inside the write's own transaction, so concurrent writes cannot overshoot.
 */

/** Whether `caller`'s writes count against quotas (customers' do, employees' do not). */
export const countsAgainstQuota = (caller: Caller | null): boolean => caller?.aud !== 'employee';

export const propertyQuotaDetail = (quota: number) =>
  `The owner already has ${quota} properties, the most allowed per owner`;

export const unitQuotaDetail = (quota: number) =>
  `The property already has ${quota} units counting deleted ones, the most allowed per property`;

/** A property create, and whether it counts against its owner's quota. */
export interface QuotaCreate {
  row: BulkPropertyInput;
  counted: boolean;
}

/**
 * One group-commit kind per quota, made on first use: consecutive creates
 * under one quota are combined (the server has one quota; a test may use
 * another).
 */
export function kindPerQuota<Kind>(make: (quota: number) => Kind): (quota: number) => Kind {
  const kinds = new Map<number, Kind>();
  return (quota) => {
    let kind = kinds.get(quota);
    if (!kind) {
      kind = make(quota);
      kinds.set(quota, kind);
    }
    return kind;
  };
}
