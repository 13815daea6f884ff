import type { SQLQueryBindings } from 'bun:sqlite';

export type Bindings = SQLQueryBindings[];

/**
 * A WHERE clause built from the filters present: its parts, joined by AND,
 * and their bindings in order. Each combination of filters gives one SQL
 * text, whose prepared statement is cached by text, so a query built this
 * way costs no builder on every request (docs/performance.md).
 */
export class Conditions {
  readonly parts: string[] = [];
  readonly params: Bindings = [];
  add(part: string, ...params: Bindings): void {
    this.parts.push(part);
    this.params.push(...params);
  }
  /** `WHERE …`, or '' without any condition. */
  get sql(): string {
    return this.parts.length > 0 ? `WHERE ${this.parts.join(' AND ')}` : '';
  }
}
