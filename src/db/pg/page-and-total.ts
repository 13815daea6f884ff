/**
 * The rows of a page read together with its total in ONE statement:
 * `db.select().from(total.as('t')).leftJoinLateral(page.as('p'), sql\`true\`)`,
 * where `total` counts what the page's filter matches. Both then read one
 * snapshot without a `REPEATABLE READ` transaction, whose BEGIN, SET
 * TRANSACTION and COMMIT would be three more round trips per read. An
 * empty page (past the end, or nothing matching) still answers one row:
 * the total, with a null page row.
 */
export function pageAndTotalOf<Row>(joined: readonly { t: { total: number }; p: Row | null }[]): {
  total: number;
  rows: Row[];
} {
  const rows: Row[] = [];
  for (const { p } of joined) if (p) rows.push(p);
  return { total: Number(joined[0]?.t.total ?? 0), rows };
}
