/**
 * A bad row: a row the source cannot turn into a record (sys id or timestamp missing or unparseable, or under
 * typed mode with evolution `fail` a value that does not fit its type). The message names the table, the alias,
 * the sys id and the field, never a field value (values may be personal data).
 */
export class BadRowError extends Error {
  override name = "BadRowError";
  readonly javaClassName = "org.apache.kafka.connect.errors.DataException";

  constructor(
    readonly table: string,
    readonly alias: string,
    readonly sysId: string | null,
    readonly field: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(
      `bad row in table ${table} (alias ${alias}), sys id ${sysId ?? "<none>"}, field ${field}: ${reason}`,
      options,
    );
  }
}
