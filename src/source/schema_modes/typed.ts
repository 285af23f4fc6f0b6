/**
 * `typed` mode (experimental): the fields of `svc.source.typed.fields` get their declared type (typed_coercion.ts);
 * every other field is as in strings mode. Under display value `all` a typed field is the nested Struct with a
 * typed `value`. A value that does not fit is handled by `svc.source.schema.evolution`:
 *
 * - `fail`: the row is a bad row naming the field;
 * - `backward`: the field is null in this record, the schema is unchanged, and a warning is logged once per table
 *   and field;
 * - `permissive`: the field is re-declared as optional STRING in a new schema version and the raw value is
 *   emitted; it stays STRING for the rest of the run.
 */
import type { Logger } from "../../observability/log.ts";
import type { DisplayValue } from "../../instance/mod.ts";
import type { SchemaEvolution } from "../settings.ts";
import {
  coerceTyped,
  decimalScaleFromSamples,
  typedSchema,
  type TypedType,
  TypedValueError,
  typeName,
} from "../typed_coercion.ts";
import { rawValueOf } from "../display_value.ts";
import { nestedSchema, NestedStructs } from "./nested_fields.ts";
import type { CodecPolicy, FieldCodec, MismatchOutcome } from "./struct_values.ts";
import { FieldValueError } from "./value_builder.ts";
import { nestedStringCodec, StringsPolicy } from "./strings.ts";

export interface TypedFieldContext {
  readonly table: string;
  readonly displayValue: DisplayValue;
  readonly evolution: SchemaEvolution;
  readonly logger: Logger;
}

export class TypedPolicy implements CodecPolicy {
  readonly #strings: StringsPolicy;
  readonly #warned = new Set<string>();

  constructor(
    private readonly types: ReadonlyMap<string, TypedType>,
    private readonly ctx: TypedFieldContext,
  ) {
    this.#strings = new StringsPolicy(ctx);
  }

  codecFor(field: string, samples: readonly unknown[]): FieldCodec | null {
    const type = this.types.get(field);
    if (type === undefined) return this.#strings.codecFor(field, samples);
    let scale: number | null = null;
    if (type.kind === "decimal" && type.scale === null) {
      scale = decimalScaleFromSamples(samples.map(rawValueOf));
      if (scale === null) return null; // no value yet shows the scale
    }
    const schema = typedSchema(type, scale);
    const convert = (raw: unknown) => coerceTyped(type, raw, scale);
    if (this.ctx.displayValue === "all") {
      const nested = new NestedStructs(nestedSchema("all", schema), convert);
      return { schema: nested.schema, convert: (wire) => nested.build(wire) };
    }
    // Under false and true a typed field holds its raw value (display.value true keeps typed fields raw).
    return { schema, convert: (wire) => convert(rawValueOf(wire)) };
  }

  onMismatch(field: string, error: Error): MismatchOutcome {
    if (!(error instanceof TypedValueError)) throw error;
    const declared = this.types.get(field);
    const declaredName = declared ? typeName(declared) : error.type;
    switch (this.ctx.evolution) {
      case "fail":
        throw new FieldValueError(
          field,
          `${error.message} (declared ${declaredName} in svc.source.typed.fields)`,
          {
            cause: error,
          },
        );
      case "backward":
        if (!this.#warned.has(field)) {
          this.#warned.add(field);
          this.ctx.logger.warn(
            { table: this.ctx.table, field, type: declaredName, reason: error.message },
            "typed field value does not fit its declared type; emitting null (svc.source.schema.evolution=backward, warned once per table and field)",
          );
        }
        return { kind: "null" };
      case "permissive":
        this.ctx.logger.warn(
          { table: this.ctx.table, field, type: declaredName, reason: error.message },
          "typed field value does not fit its declared type; re-declaring the field as optional STRING in a new schema version (svc.source.schema.evolution=permissive)",
        );
        return {
          kind: "redeclare",
          codec: this.ctx.displayValue === "all" ? nestedStringCodec("all") : rawStringCodec(),
        };
    }
  }
}

/** A re-declared typed field: its raw value as a string. */
function rawStringCodec(): FieldCodec {
  return {
    schema: typedSchema({ kind: "string" }),
    convert(wire: unknown): unknown {
      const raw = rawValueOf(wire);
      return raw === null || raw === undefined ? null : String(raw);
    },
  };
}
