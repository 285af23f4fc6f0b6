/**
 * Kafka's `ExtractField$Key` / `ExtractField$Value`: replaces the key/value with one of its fields (the field's
 * schema becomes the new schema). With `field.syntax.version=V2` the field may be a nested dotted path.
 * A null key/value passes through as null; a field that the schema does not have is an error
 * (`Unknown field: x`), while a missing schemaless entry extracts null.
 */
import { DataException } from "../errors.ts";
import { type ConfigKeyDef, REPLACE_NULL_WITH_DEFAULT_DEF, TransformConfig } from "./config.ts";
import { FIELD_SYNTAX_VERSION_DEF, fieldSyntaxVersion, SingleFieldPath } from "./field_path.ts";
import {
  operatingSchema,
  operatingValue,
  type RecordSide,
  requireMapOrNull,
  requireStructOrNull,
  withOperating,
} from "./support.ts";
import type { AnyRecord, Transformation } from "./types.ts";

export const EXTRACT_FIELD_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "field",
    type: "STRING",
    importance: "MEDIUM",
    documentation: "Field name to extract.",
  },
  REPLACE_NULL_WITH_DEFAULT_DEF,
  FIELD_SYNTAX_VERSION_DEF,
];

const PURPOSE = "field extraction";

export class ExtractField<R extends AnyRecord> implements Transformation<R> {
  #path: SingleFieldPath | null = null;
  #replaceNullWithDefault = true;

  constructor(private readonly side: RecordSide) {}

  configure(props: Readonly<Record<string, string>>): void {
    const config = new TransformConfig(EXTRACT_FIELD_CONFIG_DEF, props);
    this.#path = new SingleFieldPath(
      config.getString("field")!,
      fieldSyntaxVersion(config.getString("field.syntax.version")),
    );
    this.#replaceNullWithDefault = config.getBoolean("replace.null.with.default");
  }

  apply(record: R): R {
    const path = this.#path!;
    const schema = operatingSchema(record, this.side);
    if (schema === null) {
      const value = requireMapOrNull(operatingValue(record, this.side), PURPOSE);
      return withOperating(record, this.side, null, path.valueFromMap(value));
    }
    const value = requireStructOrNull(operatingValue(record, this.side), PURPOSE);
    const field = path.fieldFrom(schema);
    if (field === null) throw new DataException(`Unknown field: ${path.text}`);
    return withOperating(
      record,
      this.side,
      field.schema,
      path.valueFromStruct(value, this.#replaceNullWithDefault),
    );
  }

  close(): void {}
}
