import { type FieldFailure, fail } from '@/kernel/errors';

/**
 * Collects the rules broken by input that is not a JSON body (query strings,
 * cross-field rules); the transport renders them (docs/errors.md).
 */
export class FieldErrors {
  readonly #failures: FieldFailure[] = [];

  add(field: string, rule: string, message: string): void {
    this.#failures.push({ path: [field], rule, message });
  }

  has(field: string): boolean {
    return this.#failures.some((failure) => failure.path[0] === field);
  }

  /** Throws the 422 when anything was added. */
  throwIfAny(): void {
    if (this.#failures.length > 0) throw fail('request.invalid', { fields: this.#failures });
  }
}

/** "pay_date_from" → "pay date from", as Laravel names attributes in messages. */
export const attributeName = (field: string) => field.replaceAll('_', ' ');

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date written YYYY-MM-DD. */
export function isDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  );
}

const DECIMAL = /^(-?)(\d{1,13})(?:\.(\d{1,2}))?$/;

/** An exact decimal with at most two places ("1234.5", "-3", 10.5) → integer cents; null otherwise. */
export function toCents(value: string | number): number | null {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const cents = Number(match[2]) * 100 + Number((match[3] ?? '').padEnd(2, '0'));
  return match[1] === '-' && cents !== 0 ? -cents : cents;
}

/** Integer cents → "1234.50". */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
