import type { FieldFailure } from '@/kernel/errors';

export type RuleMessages = Record<string, string>;
export interface ValidationMessages {
  [field: string]: RuleMessages | ValidationMessages;
}

/**
 * Field names come from the request body, so only own properties are read and
 * written: `constructor`, `toString` or `__proto__` are fields like any other,
 * never Object.prototype's members (a body key `constructor` used to crash the
 * error handler; `__proto__` would have replaced a prototype).
 */
export const own = (node: object, key: PropertyKey): unknown =>
  Object.hasOwn(node, key) ? (node as Record<PropertyKey, unknown>)[key] : undefined;

function setOwn(node: object, key: string, value: unknown) {
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
}

function place(target: ValidationMessages, path: readonly PropertyKey[], rules: RuleMessages) {
  let node = target;
  for (const [index, key] of path.entries()) {
    const name = String(key);
    const existing = own(node, name) as ValidationMessages | undefined;
    if (index === path.length - 1) {
      setOwn(node, name, { ...existing, ...rules });
      return;
    }
    if (existing === undefined) setOwn(node, name, {});
    node = own(node, name) as ValidationMessages;
  }
}

/** The problem body's `validationMessages`: nested field → rule → message (docs/errors.md). */
export function validationMessagesOf(failures: readonly FieldFailure[]): ValidationMessages {
  const messages: ValidationMessages = {};
  for (const { path, rule, message } of failures) place(messages, path, { [rule]: message });
  return messages;
}

/** The customer API's Laravel `errors`: dotted field → its sentences, in order. */
export function laravelErrorsOf(failures: readonly FieldFailure[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const { path, message } of failures) {
    const key = path.map(String).join('.');
    setOwn(errors, key, [...((own(errors, key) as string[] | undefined) ?? []), message]);
  }
  return errors;
}
