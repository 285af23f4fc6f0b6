/**
 * Nested Structs for fields that arrive as objects: every field under display value `all`
 * (`{value, display_value, link}`), and reference fields with their link under `false` (`{value, link}`) or `true`
 * (`{display_value, link}`). Every part is optional: `link` only exists for references, and a part the API left
 * out is null.
 */
import { type Schema, Schema as Schemas } from "../../connect/schema.ts";
import { SchemaBuilder } from "../../connect/schema_builder.ts";
import { Struct } from "../../connect/struct.ts";
import type { Field } from "../../connect/schema.ts";

export type NestedShape = "all" | "reference_value" | "reference_display";

const PARTS: Record<NestedShape, readonly string[]> = {
  all: ["value", "display_value", "link"],
  reference_value: ["value", "link"],
  reference_display: ["display_value", "link"],
};

/** The nested schema of a shape; `value` may be typed (typed mode under `all`). */
export function nestedSchema(
  shape: NestedShape,
  valueSchema: Schema = Schemas.OPTIONAL_STRING_SCHEMA,
): Schema {
  const b = SchemaBuilder.struct().optional();
  for (const part of PARTS[shape]) {
    b.field(part, part === "value" ? valueSchema : Schemas.OPTIONAL_STRING_SCHEMA);
  }
  return b.build();
}

function text(v: unknown): string | null {
  return v === null || v === undefined ? null : typeof v === "string" ? v : String(v);
}

/**
 * Builds nested Structs of one schema. `convertValue` turns the raw `value` part (strings mode: as is; typed mode:
 * the coercion, which may throw).
 */
export class NestedStructs {
  readonly #fields: readonly Field[];
  /** The part a plain string stands for when the API sends one where an object was expected (empty reference ""). */
  readonly #primary: Field;

  constructor(
    readonly schema: Schema,
    private readonly convertValue: (raw: unknown) => unknown = text,
  ) {
    this.#fields = schema.fields();
    this.#primary = this.#fields[0];
  }

  build(v: unknown): Struct | null {
    if (v === null || v === undefined) return null;
    const s = new Struct(this.schema);
    if (typeof v !== "object") {
      s.put(this.#primary, this.#primary.name === "value" ? this.convertValue(v) : text(v));
      return s;
    }
    const parts = v as Record<string, unknown>;
    for (const f of this.#fields) {
      const part = parts[f.name];
      if (part === undefined || part === null) continue;
      s.put(f, f.name === "value" ? this.convertValue(part) : text(part));
    }
    return s;
  }
}
