/**
 * `strings` mode: every field an optional STRING, in a schema that only grows (see struct_values.ts). Fields that
 * arrive as objects become nested Structs (nested_fields.ts): all of them under display value `all`, references
 * with their link under `false`/`true`. Which shape a field has is decided when it is first seen, from every value
 * of it in that page; a later value of the other shape is fitted in (an object in a STRING field gives its value
 * and loses its link, logged once; a plain string in a nested field fills its main part).
 */
import type { Logger } from "../../observability/log.ts";
import { Schema as Schemas } from "../../connect/schema.ts";
import type { DisplayValue } from "../../instance/mod.ts";
import { nestedSchema, type NestedShape, NestedStructs } from "./nested_fields.ts";
import type { CodecPolicy, FieldCodec, MismatchOutcome } from "./struct_values.ts";

export interface StringFieldContext {
  readonly table: string;
  readonly displayValue: DisplayValue;
  readonly logger: Logger;
}

/** The nested shape a field gets from its sample values, or null for a plain STRING. */
function nestedShapeOf(displayValue: DisplayValue, samples: readonly unknown[]): NestedShape | null {
  if (displayValue === "all") return "all";
  const anObject = samples.some((v) => typeof v === "object" && v !== null);
  if (!anObject) return null;
  return displayValue === "true" ? "reference_display" : "reference_value";
}

/** Shared nested builders: one schema per shape for the whole process. */
const NESTED: Record<NestedShape, NestedStructs> = {
  all: new NestedStructs(nestedSchema("all")),
  reference_value: new NestedStructs(nestedSchema("reference_value")),
  reference_display: new NestedStructs(nestedSchema("reference_display")),
};

export function nestedStringCodec(shape: NestedShape): FieldCodec {
  const nested = NESTED[shape];
  return { schema: nested.schema, convert: (wire) => nested.build(wire) };
}

/** A plain optional STRING field. */
function stringCodec(field: string, ctx: StringFieldContext): FieldCodec {
  let warned = false;
  return {
    schema: Schemas.OPTIONAL_STRING_SCHEMA,
    convert(wire: unknown): unknown {
      if (typeof wire === "string" || wire === null) return wire;
      if (typeof wire === "object") {
        const parts = wire as Record<string, unknown>;
        if (!warned) {
          warned = true;
          ctx.logger.warn(
            { table: ctx.table, field },
            "a field first seen as a plain string now arrives as an object; its main value is emitted and the rest dropped",
          );
        }
        const main = ctx.displayValue === "true" ? parts.display_value : parts.value;
        return main === undefined || main === null ? null : String(main);
      }
      return String(wire);
    },
  };
}

export class StringsPolicy implements CodecPolicy {
  constructor(private readonly ctx: StringFieldContext) {}

  codecFor(field: string, samples: readonly unknown[]): FieldCodec {
    const shape = nestedShapeOf(this.ctx.displayValue, samples);
    return shape === null ? stringCodec(field, this.ctx) : nestedStringCodec(shape);
  }

  onMismatch(_field: string, error: Error): MismatchOutcome {
    // String codecs accept every value; a refusal here is a bug, not a data problem.
    throw error;
  }
}
