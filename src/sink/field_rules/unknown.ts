/**
 * Field rule 5, `svc.sink.unknown.field.behavior`: fields absent from the target table's dictionary (its own
 * columns and its ancestors') are a record error (`fail`), left out while the rest is written and reported
 * (`drop`), or sent as they are (`passthrough`, which never reads the dictionary: for integration users who
 * cannot read it).
 */
import type { DictionaryCache } from "../dictionary_cache.ts";
import { SinkRecordError } from "../record_error.ts";
import type { UnknownFieldBehavior } from "../settings.ts";

export interface UnknownFieldResult {
  body: Record<string, string>;
  /** Fields left out under `drop`, in body order. */
  dropped: string[];
}

export class UnknownFieldRule {
  constructor(
    private readonly behavior: UnknownFieldBehavior,
    private readonly dictionaries: DictionaryCache,
  ) {}

  async apply(
    table: string,
    body: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<UnknownFieldResult> {
    if (this.behavior === "passthrough" || Object.keys(body).length === 0) return { body, dropped: [] };
    const columns = await this.dictionaries.columns(table, signal);
    if (columns === null) {
      throw new SinkRecordError(
        "invalid_field",
        `the dictionary of table "${table}" cannot be read (unknown table, or no read access to sys_db_object ` +
          `and sys_dictionary); grant it or set svc.sink.unknown.field.behavior=passthrough`,
      );
    }
    const unknown = Object.keys(body).filter((name) => !columns.has(name));
    if (unknown.length === 0) return { body, dropped: [] };
    if (this.behavior === "fail") {
      throw new SinkRecordError(
        "invalid_field",
        `table "${table}" has no field ${
          unknown.map((n) => `"${n}"`).join(", ")
        } (svc.sink.unknown.field.behavior=fail)`,
      );
    }
    const kept = Object.fromEntries(Object.entries(body).filter(([name]) => columns.has(name)));
    return { body: kept, dropped: unknown };
  }
}
