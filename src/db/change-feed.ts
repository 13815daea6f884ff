/**
 * One row of `cache_changes`: a write to a table some cached answer is read
 * from. Each database's feed hands them over (`ChangeFeed`,
 * src/db/sqlite/change-feed.ts; `PostgresChangeFeed`, src/db/pg/change-feed.ts).
 */
export interface Change {
  topic: string;
  key: string;
}
