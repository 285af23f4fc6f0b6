/**
 * Kafka's `InsertHeader`: adds a header named `header` with the literal `value.literal` to every record. The
 * literal is typed the way Kafka's `Values.parseString` types it (see header_literal.ts): `42` is an INT8 header,
 * `true` a BOOLEAN, other text a STRING.
 */
import type { SchemaAndValue } from "../schema.ts";
import { type ConfigKeyDef, nonEmptyString, TransformConfig } from "./config.ts";
import { parseHeaderLiteral } from "./header_literal.ts";
import type { AnyRecord, Transformation } from "./types.ts";

export const INSERT_HEADER_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "header",
    type: "STRING",
    importance: "HIGH",
    documentation: "The name of the header.",
    validator: nonEmptyString,
  },
  {
    name: "value.literal",
    type: "STRING",
    importance: "HIGH",
    documentation: "The literal value that is to be set as the header value on all records.",
  },
];

export class InsertHeader<R extends AnyRecord> implements Transformation<R> {
  #header = "";
  #literal: SchemaAndValue | null = null;

  configure(props: Readonly<Record<string, string>>): void {
    const config = new TransformConfig(INSERT_HEADER_CONFIG_DEF, props);
    this.#header = config.getString("header")!;
    this.#literal = parseHeaderLiteral(config.getString("value.literal")!);
  }

  apply(record: R): R {
    const headers = record.headers.duplicate().addSchemaAndValue(this.#header, this.#literal!);
    return record.newRecord({ headers }) as R;
  }

  close(): void {}
}
