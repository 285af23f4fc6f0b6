/**
 * The Struct engine of the strings and typed modes: a schema that starts from the fields of the first page and
 * only grows. A field seen for the first time (added to the projection, newly visible) is appended in a new schema
 * version; a field that stops appearing stays and is null. The mode decides each field's codec (its schema and
 * how a wire value becomes a Connect value), and what happens when a value does not fit.
 *
 * Per row the work is one pass over the row's keys (to spot new fields) and one `put` per known field; schemas are
 * rebuilt only when they change.
 */
import type { Field, Schema } from "../../connect/schema.ts";
import { SchemaBuilder } from "../../connect/schema_builder.ts";
import { Struct } from "../../connect/struct.ts";
import type { TableRow } from "../../instance/mod.ts";
import { FieldValueError, type RowValue, type RowValueBuilder } from "./value_builder.ts";

/** How one field's wire value becomes its Connect value. `convert` throws when the value does not fit. */
export interface FieldCodec {
  readonly schema: Schema;
  convert(wire: unknown): unknown;
}

/** What the engine does with a value its codec refused. */
export type MismatchOutcome =
  /** Emit null; the schema stays. */
  | { readonly kind: "null" }
  /** Re-declare the field with this codec (a new schema version) and convert the value again with it. */
  | { readonly kind: "redeclare"; readonly codec: FieldCodec };

export interface CodecPolicy {
  /**
   * The codec of a field seen for the first time, given its values in the rows at hand; null defers the decision
   * (no value yet tells what the field needs, e.g. the scale of a plain decimal), and the field stays out of the
   * schema until a row has a non-empty value for it.
   */
  codecFor(field: string, samples: readonly unknown[]): FieldCodec | null;
  /** A value the field's codec refused; throws to make the row a bad row. */
  onMismatch(field: string, error: Error): MismatchOutcome;
}

interface FieldPlan {
  readonly name: string;
  codec: FieldCodec | null;
  field: Field | null;
}

export interface StructValuesOptions {
  /** Name of the value schema, e.g. `tablesync.incident`. */
  readonly schemaName: string;
  /** The value schema is optional (inside an envelope, whose `before` is null). */
  readonly optional: boolean;
}

function hasValue(v: unknown): boolean {
  return v !== undefined && v !== null && v !== "";
}

export class StructValues implements RowValueBuilder {
  readonly #plans = new Map<string, FieldPlan>();
  /** Plans in schema order (deferred ones included, skipped when building). */
  readonly #order: FieldPlan[] = [];
  #schema: Schema | null = null;
  #version = 0;

  constructor(private readonly policy: CodecPolicy, private readonly options: StructValuesOptions) {}

  /** The current value schema (null before the first row). */
  get schema(): Schema | null {
    return this.#schema;
  }

  preparePage(rows: readonly TableRow[]): void {
    const pending: string[] = [];
    const seen = new Set<string>();
    for (const row of rows) {
      for (const name in row) {
        if (seen.has(name)) continue;
        const plan = this.#plans.get(name);
        if (!plan || (plan.codec === null && hasValue(row[name]))) {
          seen.add(name);
          pending.push(name);
        }
      }
    }
    if (pending.length > 0 || this.#schema === null) this.#declare(pending, rows);
  }

  build(row: TableRow): RowValue {
    let pending: string[] | null = null;
    for (const name in row) {
      const plan = this.#plans.get(name);
      if (!plan || (plan.codec === null && hasValue(row[name]))) (pending ??= []).push(name);
    }
    if (pending !== null) this.#declare(pending, [row]);
    // A re-declared field changes the schema: build the row again with the new one (at most once per field).
    for (;;) {
      const struct = this.#tryBuild(row);
      if (struct !== null) return { schema: struct.schema, value: struct };
    }
  }

  /** The row's Struct, or null when a field was re-declared and the row must be built again. */
  #tryBuild(row: TableRow): Struct | null {
    const schema = this.#schema!;
    const struct = new Struct(schema);
    for (const plan of this.#order) {
      if (plan.field === null) continue;
      const wire = row[plan.name];
      if (wire === undefined) continue;
      let value: unknown;
      try {
        value = plan.codec!.convert(wire);
      } catch (error) {
        if (error instanceof FieldValueError) throw error;
        const outcome = this.policy.onMismatch(plan.name, error as Error);
        if (outcome.kind === "null") continue;
        plan.codec = outcome.codec;
        this.#rebuild();
        return null;
      }
      struct.put(plan.field, value);
    }
    return struct;
  }

  #declare(names: readonly string[], rows: readonly TableRow[]): void {
    for (const name of names) {
      const samples = rows.map((r) => r[name]).filter((v) => v !== undefined);
      const codec = this.policy.codecFor(name, samples);
      const existing = this.#plans.get(name);
      if (existing) {
        existing.codec = codec;
      } else {
        const plan: FieldPlan = { name, codec, field: null };
        this.#plans.set(name, plan);
        this.#order.push(plan);
      }
    }
    this.#rebuild();
  }

  #rebuild(): void {
    const b = SchemaBuilder.struct().name(this.options.schemaName).version(++this.#version);
    if (this.options.optional) b.optional();
    for (const plan of this.#order) if (plan.codec !== null) b.field(plan.name, plan.codec.schema);
    const schema = b.build();
    for (const plan of this.#order) plan.field = plan.codec === null ? null : schema.field(plan.name);
    this.#schema = schema;
  }
}
