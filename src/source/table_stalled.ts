/**
 * A table that cannot progress for a persistent reason (the instance clock cannot be read, a window of hidden
 * rows cannot be split). Backing off would leave the task RUNNING while the table never moves, so the task fails
 * with this error: its status trace names the table, the alias and the cause, and the gauge
 * `tablesync_source_table_stalled{table,alias,cause}` is 1 (`cause` = `reason`).
 */
export class TableStalledError extends Error {
  constructor(readonly table: string, readonly alias: string, readonly reason: string, detail: string) {
    super(`table ${table} (alias ${alias}) cannot progress (${reason}): ${detail}`);
    this.name = "TableStalledError";
  }
}
