/**
 * Kafka's `ReplaceField$Key` / `ReplaceField$Value`: keeps, drops and renames top-level fields.
 *
 * A field is kept iff it is not in `exclude` and `include` is empty or lists it — `exclude` wins over `include`.
 * Kept fields are then renamed by `renames` (`old:new` pairs). Struct schemas keep their name, version, doc and
 * parameters. A null key/value (tombstone) passes through unchanged.
 */
import type { Schema } from "../schema.ts";
import { SchemaBuilder } from "../schema_builder.ts";
import { Struct } from "../struct.ts";
import {
  type ConfigKeyDef,
  type ConfigValue,
  javaText,
  REPLACE_NULL_WITH_DEFAULT_DEF,
  TransformConfig,
  TransformConfigException,
} from "./config.ts";
import { javaSplit } from "./java_split.ts";
import { SchemaCache } from "./schema_cache.ts";
import {
  copySchemaBasics,
  fieldValue,
  MapBuilder,
  mapEntries,
  operatingSchema,
  operatingValue,
  type RecordSide,
  requireMap,
  requireStruct,
  withOperating,
} from "./support.ts";
import type { AnyRecord, Transformation } from "./types.ts";

/** Kafka's `parseRenameMappings`: `old:new` pairs; throws naming the first malformed entry. */
function parseRenameMappings(mappings: readonly string[]): Map<string, string> {
  const renames = new Map<string, string>();
  for (const mapping of mappings) {
    const parts = javaSplit(mapping, ":");
    if (parts.length !== 2) {
      throw TransformConfigException.invalid(
        "renames",
        javaText(mappings),
        `Invalid rename mapping: ${mapping}`,
      );
    }
    renames.set(parts[0], parts[1]);
  }
  return renames;
}

function renamesValidator(value: ConfigValue): string | undefined {
  const bad = (value as string[]).find((m) => javaSplit(m, ":").length !== 2);
  return bad === undefined ? undefined : `Invalid rename mapping: ${bad}`;
}

export const REPLACE_FIELD_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "exclude",
    type: "LIST",
    default: "",
    importance: "MEDIUM",
    documentation: "Fields to exclude. This takes precedence over the fields to include.",
  },
  {
    name: "include",
    type: "LIST",
    default: "",
    importance: "MEDIUM",
    documentation: "Fields to include. If specified, only these fields will be used.",
  },
  {
    name: "renames",
    type: "LIST",
    default: "",
    importance: "MEDIUM",
    documentation: "Field rename mappings.",
    validator: renamesValidator,
  },
  REPLACE_NULL_WITH_DEFAULT_DEF,
];

const PURPOSE = "field replacement";

export class ReplaceField<R extends AnyRecord> implements Transformation<R> {
  #exclude = new Set<string>();
  #include = new Set<string>();
  #renames = new Map<string, string>();
  #reverseRenames = new Map<string, string>();
  #replaceNullWithDefault = true;
  readonly #schemaCache = new SchemaCache();

  constructor(private readonly side: RecordSide) {}

  configure(props: Readonly<Record<string, string>>): void {
    const config = new TransformConfig(REPLACE_FIELD_CONFIG_DEF, props);
    this.#exclude = new Set(config.getList("exclude"));
    this.#include = new Set(config.getList("include"));
    this.#renames = parseRenameMappings(config.getList("renames"));
    this.#reverseRenames = new Map([...this.#renames].map(([from, to]) => [to, from]));
    this.#replaceNullWithDefault = config.getBoolean("replace.null.with.default");
  }

  /** Kafka's `filter`: exclude wins; an empty include list keeps everything not excluded. */
  #keeps(name: string): boolean {
    return !this.#exclude.has(name) && (this.#include.size === 0 || this.#include.has(name));
  }

  #renamed(name: string): string {
    return this.#renames.get(name) ?? name;
  }

  apply(record: R): R {
    const value = operatingValue(record, this.side);
    if (value === null) return record;
    return operatingSchema(record, this.side) === null
      ? this.#applySchemaless(record, value)
      : this.#applyWithSchema(record, value);
  }

  #applySchemaless(record: R, raw: unknown): R {
    const value = requireMap(raw, PURPOSE);
    const updated = MapBuilder.like(value);
    for (const [name, fieldValue] of mapEntries(value)) {
      if (this.#keeps(String(name))) updated.set(this.#renamed(String(name)), fieldValue);
    }
    return withOperating(record, this.side, null, updated.build());
  }

  #applyWithSchema(record: R, raw: unknown): R {
    const value = requireStruct(raw, PURPOSE);
    const schema = this.#schemaCache.getOrCompute(value.schema, (s) => this.#updatedSchema(s));
    const updated = new Struct(schema);
    for (const field of schema.fields()) {
      const original = this.#reverseRenames.get(field.name) ?? field.name;
      updated.put(field.name, fieldValue(value, original, this.#replaceNullWithDefault));
    }
    return withOperating(record, this.side, schema, updated);
  }

  #updatedSchema(schema: Schema): Schema {
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    for (const field of schema.fields()) {
      if (this.#keeps(field.name)) builder.field(this.#renamed(field.name), field.schema);
    }
    return builder.build();
  }

  close(): void {
    this.#schemaCache.clear();
  }
}
