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
