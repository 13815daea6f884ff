import { index, integer, json, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { epochMsNumber } from './columns';

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    scope: text().notNull(),
    key: text().notNull(),
    method: text().notNull(),
    path: text().notNull(),
    requestHash: text().notNull(),
    status: integer(),
    headers: json().$type<Record<string, string>>(),
    body: text(),
    createdAt: epochMsNumber().notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.scope, table.key] }),
    index('idempotency_keys_created_at').on(table.createdAt),
    // A claim's eviction walks one caller's keys oldest first and stops:
    // without it each claim read every key of the caller and sorted them.
    index('idempotency_keys_scope_created_at').on(table.scope, table.createdAt),
  ],
);
