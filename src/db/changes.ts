/**
 * Partial updates: a PUT sends only the fields it changes, so the columns to SET are built from
 * optional input. With nothing to set, SQL has no valid UPDATE (`SET` needs a column: Kysely
 * emits `update … set where …`, a syntax error, i.e. a 500). Sentry answers such a PUT with 200
 * and the resource as it is, so the update is skipped, and with it any event it would have caused.
 */

/** Whether a set of columns changes anything (keys whose value is undefined set nothing). */
export function hasChanges(columns: object): boolean {
  return Object.values(columns).some((value) => value !== undefined);
}

/**
 * Runs `write` only when `columns` sets something; otherwise answers `unchanged()` and issues no
 * query. `write` may answer undefined (the row vanished meanwhile): the caller decides what that means.
 */
export async function updateIfChanged<Columns extends object, Row>(
  columns: Columns,
  write: (columns: Columns) => Promise<Row>,
  unchanged: () => Row | Promise<Row>,
): Promise<Row> {
  return hasChanges(columns) ? write(columns) : unchanged();
}
