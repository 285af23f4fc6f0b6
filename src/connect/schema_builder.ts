/**
 * Kafka's fluent `SchemaBuilder`. Each property may be set once (setting it again to a different value throws
 * `SchemaBuilderException`, as in Kafka); `build()` returns an immutable `ConnectSchema`.
 *
 * ```ts
 * const schema = SchemaBuilder.struct().name("servicenow.incident").version(1)
 *   .field("sys_id", Schema.STRING_SCHEMA)
 *   .field("sys_updated_on", ConnectTimestamp.builder().optional().build())
 *   .build();
 * ```
 *
 * Unlike Kafka's, this builder is not itself a `Schema` (its setters are named like the schema's properties);
 * call `build()` wherever a schema is needed.
 */
import { SchemaBuilderException } from "./errors.ts";
import { ConnectSchema, Field, type Schema, type SchemaType } from "./schema.ts";
import { validateValue } from "./struct.ts";

export class SchemaBuilder {
  readonly type: SchemaType;
  #optional: boolean | null = null;
  #defaultValue: unknown = null;
  #name: string | null = null;
  #version: number | null = null;
  #doc: string | null = null;
  #parameters: Map<string, string> | null = null;
  readonly #fields: Field[] = [];
  readonly #keySchema: Schema | null;
  readonly #valueSchema: Schema | null;

  constructor(type: SchemaType, keySchema: Schema | null = null, valueSchema: Schema | null = null) {
    this.type = type;
    this.#keySchema = keySchema;
    this.#valueSchema = valueSchema;
  }

  static type(type: SchemaType): SchemaBuilder {
    if (type === "ARRAY" || type === "MAP") {
      throw new SchemaBuilderException(
        `Use SchemaBuilder.${type.toLowerCase()}(...) to build ${type} schemas`,
      );
    }
    return new SchemaBuilder(type);
  }
  static int8(): SchemaBuilder {
    return new SchemaBuilder("INT8");
  }
  static int16(): SchemaBuilder {
    return new SchemaBuilder("INT16");
  }
  static int32(): SchemaBuilder {
    return new SchemaBuilder("INT32");
  }
  static int64(): SchemaBuilder {
    return new SchemaBuilder("INT64");
  }
  static float32(): SchemaBuilder {
    return new SchemaBuilder("FLOAT32");
  }
  static float64(): SchemaBuilder {
    return new SchemaBuilder("FLOAT64");
  }
  static bool(): SchemaBuilder {
    return new SchemaBuilder("BOOLEAN");
  }
  static string(): SchemaBuilder {
    return new SchemaBuilder("STRING");
  }
  static bytes(): SchemaBuilder {
    return new SchemaBuilder("BYTES");
  }
  static struct(): SchemaBuilder {
    return new SchemaBuilder("STRUCT");
  }
  static array(valueSchema: Schema): SchemaBuilder {
    if (valueSchema == null) throw new SchemaBuilderException("valueSchema cannot be null.");
    return new SchemaBuilder("ARRAY", null, valueSchema);
  }
  static map(keySchema: Schema, valueSchema: Schema): SchemaBuilder {
    if (keySchema == null) throw new SchemaBuilderException("keySchema cannot be null.");
    if (valueSchema == null) throw new SchemaBuilderException("valueSchema cannot be null.");
    return new SchemaBuilder("MAP", keySchema, valueSchema);
  }

  /** Whether the builder has been marked optional so far (Kafka's `isOptional()` on a builder). */
  get isOptional(): boolean {
    return this.#optional ?? false;
  }

  optional(): this {
    checkCanSet("optional", this.#optional, true);
    this.#optional = true;
    return this;
  }

  required(): this {
    checkCanSet("optional", this.#optional, false);
    this.#optional = false;
    return this;
  }

  /** Sets the default, validated against the schema as built so far (`Invalid default value` otherwise). */
  defaultValue(value: unknown): this {
    checkCanSet("default", this.#defaultValue, value);
    try {
      validateValue(this.build(), value);
    } catch (e) {
      throw new SchemaBuilderException("Invalid default value", { cause: e });
    }
    this.#defaultValue = value ?? null;
    return this;
  }

  name(name: string): this {
    checkCanSet("name", this.#name, name);
    this.#name = name;
    return this;
  }

  version(version: number): this {
    checkCanSet("version", this.#version, version);
    if (!Number.isInteger(version)) throw new SchemaBuilderException("Schema version must be an integer");
    this.#version = version;
    return this;
  }

  doc(doc: string): this {
    checkCanSet("doc", this.#doc, doc);
    this.#doc = doc;
    return this;
  }

  /** Adds one string parameter (kept in insertion order). */
  parameter(name: string, value: string): this {
    (this.#parameters ??= new Map()).set(name, value);
    return this;
  }

  /** Adds every parameter of a map or record. */
  parameters(parameters: ReadonlyMap<string, string> | Readonly<Record<string, string>>): this {
    const entries = parameters instanceof Map ? parameters.entries() : Object.entries(parameters);
    for (const [k, v] of entries) this.parameter(k, v);
    return this;
  }

  /** STRUCT only: appends a field. */
  field(name: string, schema: Schema): this {
    if (this.type !== "STRUCT") throw new SchemaBuilderException(`Cannot create fields on type ${this.type}`);
    if (name == null) throw new SchemaBuilderException("fieldName cannot be null.");
    if (schema == null) {
      throw new SchemaBuilderException("fieldSchema for field " + name + " cannot be null.");
    }
    if (this.#fields.some((f) => f.name === name)) {
      throw new SchemaBuilderException(`Cannot create field because of field name duplication ${name}`);
    }
    this.#fields.push(new Field(name, this.#fields.length, schema));
    return this;
  }

  /** The fields added so far (STRUCT only), e.g. to copy a schema while changing some fields. */
  fields(): readonly Field[] {
    if (this.type !== "STRUCT") throw new SchemaBuilderException("Cannot list fields on non-struct type");
    return [...this.#fields];
  }

  build(): ConnectSchema {
    return new ConnectSchema({
      type: this.type,
      isOptional: this.#optional ?? false,
      defaultValue: this.#defaultValue,
      name: this.#name,
      version: this.#version,
      doc: this.#doc,
      parameters: this.#parameters,
      fields: this.#fields,
      keySchema: this.#keySchema,
      valueSchema: this.#valueSchema,
    });
  }

  /** Kafka's alias of `build()`. */
  schema(): ConnectSchema {
    return this.build();
  }
}

function checkCanSet(property: string, current: unknown, next: unknown): void {
  if (current !== null && current !== next) {
    throw new SchemaBuilderException(`Invalid SchemaBuilder call: ${property} has already been set.`);
  }
}
