export type CopyErrorCode =
  | 'source_missing'
  | 'source_unreadable'
  | 'source_outdated'
  | 'target_unreachable'
  | 'target_migration_failed'
  | 'target_not_empty'
  | 'schema_mismatch'
  | 'copy_failed'
  | 'count_mismatch';

/** Why a copy did not happen; the target holds none of the source's rows. */
export class CopyError extends Error {
  override readonly name = 'CopyError';
  constructor(
    readonly code: CopyErrorCode,
    message: string,
    /** The per-table counts, when the copy got as far as counting. */
    readonly counts: TableCount[] = [],
  ) {
    super(message);
  }
}

export interface TableCount {
  table: string;
  sqlite: number;
  postgres: number;
}

/** The tables whose counts differ (empty: the copy is complete). */
export const mismatches = (counts: readonly TableCount[]): TableCount[] =>
  counts.filter((count) => count.sqlite !== count.postgres);
