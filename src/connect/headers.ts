/**
 * Connect record headers (Kafka's `ConnectHeaders` / `ConnectHeader`): an ordered, mutable list of
 * key/schema/value entries. Keys may repeat; `lastWithName` gives the latest. A header's schema is optional;
 * when present the value is checked against it.
 */
import { DataException } from "./errors.ts";
import type { BigDecimal } from "./big_decimal.ts";
import { ConnectDate, ConnectDecimal, ConnectTime, ConnectTimestamp } from "./logical.ts";
import { type Schema, Schema as Schemas, type SchemaAndValue } from "./schema.ts";
import { displayValue, type Struct, validateValue } from "./struct.ts";

/** One header: its key, optional schema, and value in the Connect representation. */
export class Header {
  constructor(readonly key: string, readonly schema: Schema | null, readonly value: unknown) {}

  /** The same schema and value under another key. */
  rename(key: string): Header {
    return new Header(key, this.schema, this.value);
  }

  /** The same key with another schema and value. */
  with(schema: Schema | null, value: unknown): Header {
    return new Header(this.key, schema, value);
  }

  toString(): string {
    return `ConnectHeader(key=${this.key}, value=${displayValue(this.value)}, schema=${this.schema})`;
  }
}

/** Kafka's header check: a null value needs an optional schema; a value must fit its schema. */
function checkSchemaMatches(key: string, schema: Schema | null, value: unknown): void {
  if (schema === null) return;
  if (value === null || value === undefined) {
    if (!schema.isOptional) {
      throw new DataException(`A null value requires an optional schema but was ${schema}`);
    }
    return;
  }
  validateValue(schema, value, key);
}

export class ConnectHeaders implements Iterable<Header> {
  #headers: Header[];

  constructor(headers: Iterable<Header> = []) {
    this.#headers = [...headers];
  }

  get size(): number {
    return this.#headers.length;
  }

  isEmpty(): boolean {
    return this.#headers.length === 0;
  }

  [Symbol.iterator](): Iterator<Header> {
    return this.#headers[Symbol.iterator]();
  }

  /** Every header with this key, oldest first. */
  allWithName(key: string): Header[] {
    return this.#headers.filter((h) => h.key === key);
  }

  /** The most recently added header with this key, or null. */
  lastWithName(key: string): Header | null {
    for (let i = this.#headers.length - 1; i >= 0; i--) {
      if (this.#headers[i].key === key) return this.#headers[i];
    }
    return null;
  }

  /** Appends a header; the value is validated against the schema when one is given. */
  add(key: string, value: unknown, schema: Schema | null = null): this {
    if (key == null) throw new DataException("Header key cannot be null");
    checkSchemaMatches(key, schema, value);
    this.#headers.push(new Header(key, schema, value ?? null));
    return this;
  }

  /** Appends an existing header (validated like `add`). */
  addHeader(header: Header): this {
    return this.add(header.key, header.value, header.schema);
  }

  /** Appends a header from a converter result. */
  addSchemaAndValue(key: string, schemaAndValue: SchemaAndValue): this {
    return this.add(key, schemaAndValue.value, schemaAndValue.schema);
  }

  addString(key: string, value: string | null): this {
    return this.add(key, value, value === null ? Schemas.OPTIONAL_STRING_SCHEMA : Schemas.STRING_SCHEMA);
  }
  addBoolean(key: string, value: boolean): this {
    return this.add(key, value, Schemas.BOOLEAN_SCHEMA);
  }
  addInt(key: string, value: number): this {
    return this.add(key, value, Schemas.INT32_SCHEMA);
  }
  addLong(key: string, value: number | bigint): this {
    return this.add(key, value, Schemas.INT64_SCHEMA);
  }
  addDouble(key: string, value: number): this {
    return this.add(key, value, Schemas.FLOAT64_SCHEMA);
  }
  addBytes(key: string, value: Uint8Array): this {
    return this.add(key, value, Schemas.BYTES_SCHEMA);
  }
  addStruct(key: string, value: Struct): this {
    return this.add(key, value, value.schema);
  }
  addDecimal(key: string, value: BigDecimal): this {
    return this.add(key, value, ConnectDecimal.schema(value.scale));
  }
  addDate(key: string, value: Date): this {
    return this.add(key, value, ConnectDate.SCHEMA);
  }
  addTime(key: string, value: Date): this {
    return this.add(key, value, ConnectTime.SCHEMA);
  }
  addTimestamp(key: string, value: Date): this {
    return this.add(key, value, ConnectTimestamp.SCHEMA);
  }

  /** Removes every header with this key. */
  remove(key: string): this {
    this.#headers = this.#headers.filter((h) => h.key !== key);
    return this;
  }

  /** Keeps only the latest header of the given key, or of every key when none is given. */
  retainLatest(key?: string): this {
    const seen = new Set<string>();
    const kept: Header[] = [];
    for (let i = this.#headers.length - 1; i >= 0; i--) {
      const h = this.#headers[i];
      if ((key === undefined || h.key === key) && seen.has(h.key)) continue;
      seen.add(h.key);
      kept.push(h);
    }
    this.#headers = kept.reverse();
    return this;
  }

  clear(): this {
    this.#headers = [];
    return this;
  }

  /** Replaces each header (or each header with `key`) by the transform's result; null removes it. */
  apply(transform: (header: Header) => Header | null, key?: string): this {
    this.#headers = this.#headers.flatMap((h) => {
      if (key !== undefined && h.key !== key) return [h];
      const next = transform(h);
      return next === null ? [] : [next];
    });
    return this;
  }

  /** A copy that can be changed independently (headers themselves are immutable). */
  duplicate(): ConnectHeaders {
    return new ConnectHeaders(this.#headers);
  }

  toString(): string {
    return `ConnectHeaders(headers=[${this.#headers.map(String).join(", ")}])`;
  }
}
