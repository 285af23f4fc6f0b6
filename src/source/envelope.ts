/**
 * `svc.source.emit.envelope=true`: every value wrapped as `{before: null, after, source: {table, instance},
 * op: "u", ts_ms}` (a change-event shape). The source cannot see a prior image or tell a create from an update, so
 * `before` is always null and `op` always `u`. `ts_ms` is when the row was read (epoch milliseconds); the record
 * timestamp stays the row's cursor timestamp.
 *
 * In Struct modes `before` and `after` share the row's (optional) schema; the envelope schema is rebuilt only when
 * the row schema changes.
 */
import { type Schema, Schema as Schemas } from "../connect/schema.ts";
import { SchemaBuilder } from "../connect/schema_builder.ts";
import { Struct } from "../connect/struct.ts";
import type { RowValue } from "./schema_modes/mod.ts";

const ENVELOPE_OP_UPDATE = "u";
/** A deletion (svc.table.<alias>.capture.deletes): `after` is null, `before` carries only the sys_id. */
const ENVELOPE_OP_DELETE = "d";

const SOURCE_SCHEMA = SchemaBuilder.struct().name("tablesync.Source")
  .field("table", Schemas.STRING_SCHEMA)
  .field("instance", Schemas.STRING_SCHEMA)
  .build();

export class Envelope {
  #rowSchema: Schema | null = null;
  #schema: Schema | null = null;
  readonly #sourceStruct: Struct;
  readonly #sourceMap: Readonly<Record<string, string>>;

  constructor(private readonly table: string, instance: string) {
    this.#sourceStruct = new Struct(SOURCE_SCHEMA).put("table", table).put("instance", instance);
    this.#sourceMap = Object.freeze({ table, instance });
  }

  wrap(row: RowValue, tsMs: number): RowValue {
    return this.#envelope(row, null, row.value, ENVELOPE_OP_UPDATE, tsMs);
  }

  /** The change event of a deletion: `before` is the given image (the sys_id only), `after` null. */
  wrapDelete(before: RowValue, tsMs: number): RowValue {
    return this.#envelope(before, before.value, null, ENVELOPE_OP_DELETE, tsMs);
  }

  #envelope(row: RowValue, before: unknown, after: unknown, op: string, tsMs: number): RowValue {
    if (row.schema === null) {
      return { schema: null, value: { before, after, source: this.#sourceMap, op, ts_ms: tsMs } };
    }
    const schema = this.#schemaFor(row.schema);
    const value = new Struct(schema)
      .put("before", before)
      .put("after", after)
      .put("source", this.#sourceStruct)
      .put("op", op)
      .put("ts_ms", tsMs);
    return { schema, value };
  }

  #schemaFor(rowSchema: Schema): Schema {
    if (rowSchema !== this.#rowSchema) {
      if (!rowSchema.isOptional) throw new Error("an enveloped row schema must be optional (before is null)");
      this.#schema = SchemaBuilder.struct().name(`tablesync.${this.table}.Envelope`)
        .field("before", rowSchema)
        .field("after", rowSchema)
        .field("source", SOURCE_SCHEMA)
        .field("op", Schemas.STRING_SCHEMA)
        .field("ts_ms", Schemas.INT64_SCHEMA)
        .build();
      this.#rowSchema = rowSchema;
    }
    return this.#schema!;
  }
}
