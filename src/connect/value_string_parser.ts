/**
 * Connect's string forms of values, read: Kafka's `Values.parseString`, which `SimpleHeaderConverter` uses to read
 * header values (value_strings.ts writes them). It infers the narrowest schema: booleans, INT8…INT64,
 * FLOAT32/FLOAT64, Decimal, Date/Time/Timestamp, arrays and maps of a common element type; anything else is a
 * STRING (the whole original text). The tokens come from value_string_tokenizer.ts.
 *
 * Quirks kept from Kafka: strings are not unescaped; `[1,null]` is a string (a required element type cannot
 * hold null); trailing text after a closing bracket is ignored. Deliberate differences: an array or map whose
 * element type cannot be inferred (empty, or only nulls) gets a null schema rather than a schema with a null
 * element schema, and dates are parsed in UTC.
 */
import { BigDecimal } from "./big_decimal.ts";
import { DataException } from "./errors.ts";
import {
  ConnectDate,
  ConnectDecimal,
  ConnectTime,
  ConnectTimestamp,
  DATE_LOGICAL_NAME,
  DECIMAL_LOGICAL_NAME,
  TIME_LOGICAL_NAME,
  TIMESTAMP_LOGICAL_NAME,
} from "./logical.ts";
import { NULL_SCHEMA_AND_VALUE, type Schema, Schema as Schemas, type SchemaAndValue } from "./schema.ts";
import { SchemaBuilder } from "./schema_builder.ts";
import { normalizeInt64 } from "./values.ts";
import { isBlank, javaTrim } from "./java_trim.ts";
import { Tokenizer } from "./value_string_tokenizer.ts";

/** Kafka's `Values.parseString`: the inferred schema and value of a string (see module comment). */
export function parseString(value: string | null): SchemaAndValue {
  if (value === null) return NULL_SCHEMA_AND_VALUE;
  if (value.length === 0) return { schema: Schemas.STRING_SCHEMA, value };
  return new ValueParser(new Tokenizer(value)).parse(false) ?? NULL_SCHEMA_AND_VALUE;
}

const TRUE_RESULT: SchemaAndValue = Object.freeze({ schema: Schemas.BOOLEAN_SCHEMA, value: true });
const FALSE_RESULT: SchemaAndValue = Object.freeze({ schema: Schemas.BOOLEAN_SCHEMA, value: false });
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const BIGGER_THAN_LONG = BigDecimal.parse("1e19");
const ONE = new BigDecimal(1n, 0);

class ValueParser {
  constructor(readonly parser: Tokenizer) {}

  /** null stands for Java's null SchemaAndValue (the literal `null`, or nothing left to parse). */
  parse(embedded: boolean): SchemaAndValue | null {
    const p = this.parser;
    if (!p.hasNext()) return null;
    if (embedded && p.canConsume('"')) return this.#parseQuotedString();
    if (this.#canParseLiteral(embedded, "null")) return null;
    if (this.#canParseLiteral(embedded, "true")) return TRUE_RESULT;
    if (this.#canParseLiteral(embedded, "false")) return FALSE_RESULT;
    const start = p.mark();
    try {
      if (p.canConsume("[")) return this.#parseArray();
      if (p.canConsume("{")) return this.#parseMap();
    } catch (e) {
      if (!(e instanceof DataException)) throw e;
      // Not a valid array or map: Kafka falls back to reading the text as a scalar or string.
      p.rewindTo(start);
    }
    const token = p.next();
    if (isBlank(token)) return { schema: Schemas.STRING_SCHEMA, value: token };
    return this.#parseNextToken(embedded, javaTrim(token));
  }

  #canParseLiteral(embedded: boolean, literal: string): boolean {
    const start = this.parser.mark();
    if (this.parser.canConsume(literal) && (embedded || !this.parser.hasNext())) return true;
    this.parser.rewindTo(start);
    return false;
  }

  #parseNextToken(embedded: boolean, token: string): SchemaAndValue {
    const first = token[0];
    const firstIsDigit = first >= "0" && first <= "9";
    if (firstIsDigit) {
      const temporal = this.#parseMultipleTokensAsTemporal(token);
      if (temporal !== null) return temporal;
    }
    if (firstIsDigit || first === "+" || first === "-") {
      const number = parseAsNumber(token);
      if (number !== null) return number;
    }
    if (embedded) throw new DataException("Failed to parse embedded value");
    return { schema: Schemas.STRING_SCHEMA, value: this.parser.original };
  }

  #parseQuotedString(): SchemaAndValue {
    let content = "";
    while (this.parser.hasNext()) {
      if (this.parser.canConsume('"')) break;
      content += this.parser.next();
    }
    return parseAsTemporal(content) ?? { schema: Schemas.STRING_SCHEMA, value: content };
  }

  #parseArray(): SchemaAndValue {
    const p = this.parser;
    let result: unknown[] = [];
    const elementSchema = new SchemaMerger();
    while (p.hasNext()) {
      if (p.canConsume("]")) {
        if (!elementSchema.hasCommonSchema()) return { schema: null, value: result };
        const listSchema = SchemaBuilder.array(elementSchema.schema!).build();
        result = result.map((item) => alignTo(listSchema.valueSchema(), item));
        return { schema: listSchema, value: result };
      }
      if (p.canConsume(",")) throw new DataException(`Unable to parse an empty array element: ${p.original}`);
      const element = this.parse(true);
      elementSchema.merge(element);
      result.push(element?.value ?? null);
      const current = p.mark();
      if (p.canConsume("]")) p.rewindTo(current);
      else if (!p.canConsume(",")) throw new DataException("Array elements missing ',' delimiter");
    }
    if (p.previous() === ",") throw new DataException(`Array is missing element after ',': ${p.original}`);
    throw new DataException(`Array is missing terminating ']': ${p.original}`);
  }

  #parseMap(): SchemaAndValue {
    const p = this.parser;
    let result = new Map<unknown, unknown>();
    const keySchema = new SchemaMerger();
    const valueSchema = new SchemaMerger();
    while (p.hasNext()) {
      if (p.canConsume("}")) {
        if (!keySchema.hasCommonSchema() || !valueSchema.hasCommonSchema()) {
          return { schema: null, value: result };
        }
        const mapSchema = SchemaBuilder.map(keySchema.schema!, valueSchema.schema!).build();
        result = new Map(
          [...result].map((
            [k, v],
          ) => [alignTo(mapSchema.keySchema(), k), alignTo(mapSchema.valueSchema(), v)]),
        );
        return { schema: mapSchema, value: result };
      }
      if (p.canConsume(",")) {
        throw new DataException(`Unable to parse a map entry with no key or value: ${p.original}`);
      }
      const key = this.parse(true);
      if (key === null || key.value === null) {
        throw new DataException(`Map entry may not have a null key: ${p.original}`);
      }
      if (!p.canConsume(":")) {
        throw new DataException(`Map entry is missing ':' at ${p.position()} in ${p.original}`);
      }
      const value = this.parse(true);
      result.set(key.value, value?.value ?? null);
      p.canConsume(",");
      keySchema.merge(key);
      valueSchema.merge(value);
    }
    if (p.previous() === ",") throw new DataException(`Map is missing element after ',': ${p.original}`);
    throw new DataException(`Map is missing terminating '}': ${p.original}`);
  }

  #parseMultipleTokensAsTemporal(token: string): SchemaAndValue | null {
    // Times and timestamps contain unescaped colons, so they arrive split into five tokens.
    const position = this.parser.mark();
    const remainder = this.parser.nextTokens(4);
    if (remainder !== null) {
      const temporal = parseAsTemporal(token + remainder);
      if (temporal !== null) return temporal;
    }
    this.parser.rewindTo(position);
    return parseAsTemporal(token);
  }
}

const TIME_PATTERN = /^(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z$/;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z$/;

function utc(...parts: number[]): Date {
  const [year, month, day, hour = 0, minute = 0, second = 0, milli = 0] = parts;
  const date = new Date(0);
  // setUTCFullYear keeps years 0-99 literal (Date.UTC would map them to 1900-1999); overflow rolls over leniently
  // like Java's SimpleDateFormat.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, milli);
  return date;
}

function parseAsTemporal(text: string): SchemaAndValue | null {
  const token = text.replaceAll("\\:", ":");
  let m: RegExpExecArray | null;
  if ((m = TIME_PATTERN.exec(token)) !== null) {
    const [h, mi, s, ms] = m.slice(1).map(Number);
    return { schema: ConnectTime.SCHEMA, value: utc(1970, 1, 1, h, mi, s, ms) };
  }
  if ((m = TIMESTAMP_PATTERN.exec(token)) !== null) {
    return { schema: ConnectTimestamp.SCHEMA, value: utc(...m.slice(1).map(Number)) };
  }
  if ((m = DATE_PATTERN.exec(token)) !== null) {
    return { schema: ConnectDate.SCHEMA, value: utc(...m.slice(1).map(Number)) };
  }
  return null;
}

function parseAsNumber(token: string): SchemaAndValue | null {
  const decimal = BigDecimal.tryParse(token);
  if (decimal === null) return null;
  const exact = parseAsExactInteger(decimal);
  if (exact !== null) return exact;
  const asDouble = decimal.toNumber();
  const asFloat = Math.fround(asDouble);
  if (Number.isFinite(asFloat) && decimal.scale !== 0) {
    return { schema: Schemas.FLOAT32_SCHEMA, value: asFloat };
  }
  if (Number.isFinite(asDouble) && decimal.scale !== 0) {
    return { schema: Schemas.FLOAT64_SCHEMA, value: asDouble };
  }
  return { schema: ConnectDecimal.schema(decimal.scale), value: decimal };
}

/** Whole numbers in the long range get the narrowest integer type; others (and |x| < 1) are not exact. */
function parseAsExactInteger(decimal: BigDecimal): SchemaAndValue | null {
  const magnitude = decimal.signum() < 0 ? new BigDecimal(-decimal.unscaled, decimal.scale) : decimal;
  if (magnitude.compareTo(BIGGER_THAN_LONG) > 0) return null;
  if (magnitude.compareTo(ONE) < 0 && decimal.signum() !== 0) return null;
  if (!decimal.isInteger()) return null;
  const integral = decimal.toBigInt();
  if (integral < INT64_MIN || integral > INT64_MAX) return null;
  if (integral >= -128n && integral <= 127n) return { schema: Schemas.INT8_SCHEMA, value: Number(integral) };
  if (integral >= -32768n && integral <= 32767n) {
    return { schema: Schemas.INT16_SCHEMA, value: Number(integral) };
  }
  if (integral >= -2147483648n && integral <= 2147483647n) {
    return { schema: Schemas.INT32_SCHEMA, value: Number(integral) };
  }
  return { schema: Schemas.INT64_SCHEMA, value: normalizeInt64(integral) };
}

const NUMERIC_RANK: Record<string, number> = {
  INT8: 0,
  INT16: 1,
  INT32: 2,
  INT64: 3,
  FLOAT32: 4,
  FLOAT64: 5,
};

/** Kafka's `mergeSchemas`: the wider numeric type, the same schema, or null when there is no common schema. */
function mergeSchemas(previous: Schema, next: Schema): Schema | null {
  if (previous.type !== next.type) {
    const a = NUMERIC_RANK[previous.type];
    const b = NUMERIC_RANK[next.type];
    if (a === undefined || b === undefined) return null;
    return b > a ? next : previous;
  }
  if (previous.isOptional === next.isOptional) return previous.isOptional ? previous : next;
  return previous.equals(next) ? previous : null;
}

/** Kafka's `SchemaMerger`: the common schema of parsed elements; nulls are ignored. */
class SchemaMerger {
  schema: Schema | null = null;
  #compatible = true;

  merge(latest: SchemaAndValue | null): void {
    if (latest === null || latest.schema === null || !this.#compatible) return;
    if (this.schema === null) {
      this.schema = latest.schema;
      return;
    }
    this.schema = mergeSchemas(this.schema, latest.schema);
    this.#compatible = this.schema !== null;
  }

  hasCommonSchema(): boolean {
    return this.schema !== null;
  }
}

/** Kafka's `convertTo` as used to align parsed elements with their common schema. */
function alignTo(schema: Schema, value: unknown): unknown {
  if (value === null) {
    if (schema.isOptional) return null;
    throw new DataException("Unable to convert a null value to a schema that requires a value");
  }
  const numeric = typeof value === "number" || typeof value === "bigint";
  switch (schema.name) {
    case DECIMAL_LOGICAL_NAME:
      return numeric ? BigDecimal.fromNumber(Number(value)) : value;
    case DATE_LOGICAL_NAME:
      return numeric ? ConnectDate.toLogical(schema, Number(value)) : value;
    case TIME_LOGICAL_NAME:
      return numeric ? ConnectTime.toLogical(schema, Number(value)) : value;
    case TIMESTAMP_LOGICAL_NAME:
      return numeric ? ConnectTimestamp.toLogical(schema, Number(value)) : value;
  }
  if (!numeric) return value;
  switch (schema.type) {
    case "INT8":
      return Number(BigInt.asIntN(8, BigInt(Math.trunc(Number(value)))));
    case "INT16":
      return Number(BigInt.asIntN(16, BigInt(Math.trunc(Number(value)))));
    case "INT32":
      return Number(BigInt.asIntN(32, BigInt(Math.trunc(Number(value)))));
    case "INT64":
      return typeof value === "bigint" ? value : Math.trunc(value);
    case "FLOAT32":
      return Math.fround(Number(value));
    case "FLOAT64":
      return Number(value);
  }
  return value;
}
