import { fail, type ValidationMessages } from '@/kernel/errors';

/**
 * Collects Laravel-style field errors (`{message, errors}`, docs/errors.md) for
 * input that is not a JSON body (query strings, cross-field rules).
 */
export class FieldErrors {
  readonly #errors: Record<string, string[]> = {};
  readonly #messages: ValidationMessages = {};

  add(field: string, rule: string, message: string): void {
    this.#errors[field] = [...(this.#errors[field] ?? []), message];
    this.#messages[field] = {
      ...(this.#messages[field] as Record<string, string>),
      [rule]: message,
    };
  }

  has(field: string): boolean {
    return field in this.#errors;
  }

  /** Throws the 422 when anything was added. */
  throwIfAny(): void {
    if (Object.keys(this.#errors).length > 0) {
      throw fail('request.invalid', { fields: { messages: this.#messages, errors: this.#errors } });
    }
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
