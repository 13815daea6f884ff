import { and, type Column, desc, eq, isNotNull, isNull, lt, type SQL, sql } from 'drizzle-orm';
import type { User } from '@/db/sqlite/schema';
import type { AccountSearchQuery } from './schemas';

/** `GET /admin/users` as the stores take it: the validated query with its limit settled. */
export type UserSearch = Omit<AccountSearchQuery, 'limit'> & { limit: number };

export const USER_PAGE_DEFAULT = 20;

/** The users columns the search reads, on either schema. */
export interface UserColumns {
  id: Column;
  email: Column;
  role: Column;
  disabledAt: Column;
}

/** `LIKE` escapes its wildcards with `\` (the same literal on both databases). */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/**
 * The search's filter and order, written once for both databases: the
 * email part (emails are stored lower-cased), role, state, and the keyset
 * cursor (ids are uuidv7, increasing with creation).
 */
export function userSearchOf(columns: UserColumns, query: UserSearch) {
  const conditions: (SQL | undefined)[] = [
    query.email === undefined
      ? undefined
      : sql`${columns.email} LIKE ${`%${likeEscaped(query.email.toLowerCase())}%`} ESCAPE '\\'`,
    query.role === undefined ? undefined : eq(columns.role, query.role),
    query.state === undefined
      ? undefined
      : query.state === 'active'
        ? isNull(columns.disabledAt)
        : isNotNull(columns.disabledAt),
    query.cursor === undefined ? undefined : lt(columns.id, query.cursor),
  ];
  return { where: and(...conditions), orderBy: desc(columns.id), limit: query.limit + 1 };
}

/** A page of at most `limit` users and the cursor of the next (one more row was read to know). */
export function userPageOf(rows: User[], limit: number) {
  const users = rows.slice(0, limit);
  const last = users.at(-1);
  return { users, nextCursor: rows.length > limit && last ? last.id : null };
}
