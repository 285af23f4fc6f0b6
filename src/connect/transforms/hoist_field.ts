/**
 * Kafka's `HoistField$Key` / `HoistField$Value`: wraps the key/value in a single-field Struct (with a schema; the
 * new schema is an unnamed struct whose one field has the old schema) or, schemaless, in a one-entry map.
 */
import type { Schema } from "../schema.ts";
import { SchemaBuilder } from "../schema_builder.ts";
import { Struct } from "../struct.ts";
import { type ConfigKeyDef, TransformConfig } from "./config.ts";
import { SchemaCache } from "./schema_cache.ts";
import { operatingSchema, operatingValue, type RecordSide, withOperating } from "./support.ts";
import type { AnyRecord, Transformation } from "./types.ts";

export const HOIST_FIELD_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "field",
    type: "STRING",
    importance: "MEDIUM",
    documentation: "Field name for the single field that will be created in the resulting Struct or Map.",
  },
];

export class HoistField<R extends AnyRecord> implements Transformation<R> {
  #field = "";
  readonly #schemaCache = new SchemaCache();

  constructor(private readonly side: RecordSide) {}

  configure(props: Readonly<Record<string, string>>): void {
    this.#field = new TransformConfig(HOIST_FIELD_CONFIG_DEF, props).getString("field")!;
  }

  apply(record: R): R {
    const schema = operatingSchema(record, this.side);
    const value = operatingValue(record, this.side);
    if (schema === null) {
      // Kafka's Collections.singletonMap: a one-entry map, here as a plain object with that key.
      return withOperating(record, this.side, null, { [this.#field]: value });
    }
    const updatedSchema = this.#schemaCache.getOrCompute(
      schema,
      (s: Schema) => SchemaBuilder.struct().field(this.#field, s).build(),
    );
    return withOperating(record, this.side, updatedSchema, new Struct(updatedSchema).put(this.#field, value));
  }

  close(): void {
    this.#schemaCache.clear();
  }
}
