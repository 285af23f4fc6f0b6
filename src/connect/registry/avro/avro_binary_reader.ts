/**
 * Avro binary → Connect value, reading with the writer's Avro schema and building the Connect value of the
 * Connect schema derived from it (avro_schema_to_connect.ts), logical types included.
 */
import { DataException } from "../../errors.ts";
import type { Schema } from "../../schema.ts";
import { Struct } from "../../struct.ts";
import { ByteReader } from "../bytes.ts";
import { toLogical } from "./avro_defaults.ts";
import { AVRO_UNION_NAME, unionMemberFieldName } from "./avro_schema_to_connect.ts";
import type { AvroType } from "./avro_types.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

export class AvroBinaryReader {
  readonly #in: ByteReader;

  constructor(bytes: Uint8Array) {
    this.#in = new ByteReader(bytes);
  }

  /** Reads one datum; throws `DataException` when bytes remain afterwards (they belong to no value). */
  readAll(type: AvroType, schema: Schema): unknown {
    const value = this.read(type, schema);
    if (this.#in.remaining !== 0) {
      throw new DataException(`${this.#in.remaining} bytes left after the Avro value`);
    }
    return value;
  }

  read(type: AvroType, schema: Schema): unknown {
    const input = this.#in;
    switch (type.kind) {
      case "union": {
        const index = Number(input.zigzag());
        const branch = type.branches[index];
        if (branch === undefined) throw new DataException(`Union branch ${index} does not exist`);
        if (branch.kind === "primitive" && branch.type === "null") return null;
        if (schema.name === AVRO_UNION_NAME && schema.type === "STRUCT") {
          const field = schema.field(unionMemberFieldName(branch))!;
          return new Struct(schema).put(field, this.read(branch, field.schema));
        }
        return this.read(branch, schema);
      }
      case "primitive": {
        let v: unknown;
        switch (type.type) {
          case "null":
            return null;
          case "boolean":
            return input.byte() !== 0;
          case "int":
            v = Number(input.zigzag());
            break;
          case "long":
            v = input.zigzag();
            break;
          case "float":
            return input.float32();
          case "double":
            return input.float64();
          case "bytes":
            v = input.take(this.#length()).slice();
            break;
          case "string":
            return decoder.decode(input.take(this.#length()));
        }
        return toLogical(schema, v);
      }
      case "enum": {
        const index = Number(input.zigzag());
        const symbol = type.symbols[index];
        if (symbol === undefined) throw new DataException(`Enum ${type.fullName} has no symbol ${index}`);
        return symbol;
      }
      case "fixed":
        return toLogical(schema, input.take(type.size).slice());
      case "record": {
        const struct = new Struct(schema);
        for (const field of type.fields) {
          const connectField = schema.field(field.name)!;
          struct.put(connectField, this.read(field.type, connectField.schema));
        }
        return struct;
      }
      case "array": {
        if (schema.type === "MAP") {
          const map = new Map<unknown, unknown>();
          const entry = type.items as AvroType & { kind: "record" };
          this.#blocks(() => {
            const k = this.read(entry.fields[0].type, schema.keySchema());
            map.set(k, this.read(entry.fields[1].type, schema.valueSchema()));
          });
          return map;
        }
        const items: unknown[] = [];
        this.#blocks(() => items.push(this.read(type.items, schema.valueSchema())));
        return items;
      }
      case "map": {
        const map = new Map<string, unknown>();
        this.#blocks(() => {
          const key = decoder.decode(input.take(this.#length()));
          map.set(key, this.read(type.values, schema.valueSchema()));
        });
        return map;
      }
    }
  }

  #length(): number {
    const length = Number(this.#in.zigzag());
    if (length < 0) throw new DataException(`Negative length ${length}`);
    return length;
  }

  /** Array and map blocks: a count (negative: followed by the block's byte size), repeated until zero. */
  #blocks(readItem: () => void): void {
    for (;;) {
      let count = Number(this.#in.zigzag());
      if (count === 0) return;
      if (count < 0) {
        count = -count;
        this.#in.zigzag();
      }
      for (let i = 0; i < count; i++) readItem();
    }
  }
}
