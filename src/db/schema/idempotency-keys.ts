import { epochMsNumber, integer, json, text } from './columns';
import { index, primaryKey, table } from './table';

/** Responses of POSTs sent with an Idempotency-Key, replayed on retry for 24 hours. */
export const idempotencyKeys = table(
  'idempotency_keys',
  {
    /** SHA-256 of the caller (audience and subject), so a key never crosses callers. */
    scope: text().notNull(),
    key: text().notNull(),
    method: text().notNull(),
    path: text().notNull(),
    requestHash: text().notNull(),
    /** Null while the first request is still being handled. */
    status: integer(),
    headers: json<Record<string, string>>(),
    body: text(),
    createdAt: epochMsNumber().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.scope, t.key] }),
    index('idempotency_keys_created_at').on(t.createdAt),
    // A claim's eviction walks one caller's keys oldest first and stops:
    // without it each claim read every key of the caller and sorted them.
    index('idempotency_keys_scope_created_at').on(t.scope, t.createdAt),
  ],
);
