/**
 * Converts Connect records to Kafka record bytes and back, through the connector's key, value and header
 * converters. Each conversion is one error-handling stage (KEY_CONVERTER, VALUE_CONVERTER, HEADER_CONVERTER).
 */
import type { Converter, HeaderConverter, RawHeader } from "../../connect/converters/converter.ts";
import { ConnectHeaders, type Header } from "../../connect/headers.ts";
import type { ConnectRecord } from "../../connect/record.ts";
import type { Stage } from "../errors/stage.ts";
import { isPreparingConverter } from "../../connect/converters/preparing_converter.ts";

export interface RecordConverters {
  key: Converter;
  value: Converter;
  header: HeaderConverter;
  /** Class names for error logs and the DLQ header. */
  classes: { key: string; value: string; header: string };
}

/** The serialised parts of a record. */
export interface RecordBytes {
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: Record<string, Uint8Array>;
}

const EMPTY = new Uint8Array(0);

/** Thrown with the stage that failed, so the caller's error handler can attribute it. */
export class ConversionError extends Error {
  constructor(readonly stage: Stage, readonly executingClass: string, readonly original: Error) {
    super(original.message, { cause: original });
    this.name = original.name;
  }
}

function attempt<T>(stage: Stage, cls: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw new ConversionError(stage, cls, e instanceof Error ? e : new Error(String(e)));
  }
}

/**
 * Schema-registry converters must register or fetch a schema before converting (an async step, needed once per
 * new schema). Returns undefined when nothing is pending (the common case), otherwise a promise that rejects
 * with a ConversionError naming the stage.
 */
export function prepareToBytes(c: RecordConverters, record: ConnectRecord<any>): Promise<void> | undefined {
  const key = isPreparingConverter(c.key)
    ? c.key.prepareFromConnectData(record.topic, record.keySchema, record.key)
    : undefined;
  const value = isPreparingConverter(c.value)
    ? c.value.prepareFromConnectData(record.topic, record.valueSchema, record.value)
    : undefined;
  return settle(key, value, c);
}

/** The same for consumed bytes (fetching schemas by id). */
export function prepareFromBytes(
  c: RecordConverters,
  topic: string,
  bytes: { key: Uint8Array | null; value: Uint8Array | null },
): Promise<void> | undefined {
  const key = isPreparingConverter(c.key) ? c.key.prepareToConnectData(topic, bytes.key) : undefined;
  const value = isPreparingConverter(c.value) ? c.value.prepareToConnectData(topic, bytes.value) : undefined;
  return settle(key, value, c);
}

function settle(
  key: Promise<void> | undefined,
  value: Promise<void> | undefined,
  c: RecordConverters,
): Promise<void> | undefined {
  if (!key && !value) return undefined;
  const wrap = (stage: Stage, cls: string) => (e: unknown) => {
    throw new ConversionError(stage, cls, e instanceof Error ? e : new Error(String(e)));
  };
  return Promise.all([
    key?.catch(wrap("KEY_CONVERTER", c.classes.key)),
    value?.catch(wrap("VALUE_CONVERTER", c.classes.value)),
  ]).then(() => {});
}

/**
 * Header bytes already converted, per header converter and Header object. Connect headers are immutable and a
 * source shares one Header object among many records (the table, the instance, a page's extraction time), so
 * each is converted once per topic instead of once per record.
 */
const convertedHeaders = new WeakMap<
  HeaderConverter,
  WeakMap<Header, { topic: string; bytes: Uint8Array | null }>
>();

function headerBytes(c: RecordConverters, topic: string, h: Header): Uint8Array | null {
  let cache = convertedHeaders.get(c.header);
  if (!cache) convertedHeaders.set(c.header, cache = new WeakMap());
  const known = cache.get(h);
  if (known && known.topic === topic) return known.bytes;
  const bytes = attempt(
    "HEADER_CONVERTER",
    c.classes.header,
    () => c.header.fromConnectHeader(topic, h.key, h.schema, h.value),
  );
  cache.set(h, { topic, bytes });
  return bytes;
}

/**
 * The last record's converted headers, per header converter: a record whose headers are the same Header objects
 * (a source's records of one page) shares them, so the records awaiting acks do not each hold a copy (they live
 * long enough to reach V8's old space). Never mutated once built.
 */
const lastHeaders = new WeakMap<
  HeaderConverter,
  { topic: string; list: Header[]; headers: Record<string, Uint8Array>; raw: RawHeader[] }
>();

function recordHeaders(c: RecordConverters, record: ConnectRecord<any>) {
  const last = lastHeaders.get(c.header);
  if (last !== undefined && last.topic === record.topic && sameHeaders(last.list, record.headers)) {
    return last;
  }
  const list: Header[] = [];
  const headers: Record<string, Uint8Array> = {};
  const raw: RawHeader[] = [];
  for (const h of record.headers) {
    const bytes = headerBytes(c, record.topic, h);
    headers[h.key] = bytes ?? EMPTY;
    raw.push({ key: h.key, value: bytes });
    list.push(h);
  }
  const built = { topic: record.topic, list, headers, raw };
  lastHeaders.set(c.header, built);
  return built;
}

function sameHeaders(list: Header[], headers: Iterable<Header>): boolean {
  let i = 0;
  for (const h of headers) if (list[i++] !== h) return false;
  return i === list.length;
}

/** Connect record → bytes. Throws ConversionError naming the failing stage. */
export function toBytes(c: RecordConverters, record: ConnectRecord<any>): RecordBytes {
  const { headers, raw } = recordHeaders(c, record);
  const key = attempt(
    "KEY_CONVERTER",
    c.classes.key,
    () => c.key.fromConnectData(record.topic, record.keySchema, record.key, raw),
  );
  const value = attempt(
    "VALUE_CONVERTER",
    c.classes.value,
    () => c.value.fromConnectData(record.topic, record.valueSchema, record.value, raw),
  );
  return { key, value, headers };
}

/** Consumed bytes → the parts of a Connect record. Throws ConversionError naming the failing stage. */
export function fromBytes(
  c: RecordConverters,
  topic: string,
  bytes: { key: Uint8Array | null; value: Uint8Array | null; headers: Record<string, Uint8Array> },
) {
  const raw: RawHeader[] = Object.entries(bytes.headers).map(([key, value]) => ({ key, value }));
  const key = attempt("KEY_CONVERTER", c.classes.key, () => c.key.toConnectData(topic, bytes.key, raw));
  const value = attempt(
    "VALUE_CONVERTER",
    c.classes.value,
    () => c.value.toConnectData(topic, bytes.value, raw),
  );
  const headers = new ConnectHeaders();
  for (const [k, v] of Object.entries(bytes.headers)) {
    const sv = attempt("HEADER_CONVERTER", c.classes.header, () => c.header.toConnectHeader(topic, k, v));
    headers.addSchemaAndValue(k, sv);
  }
  return { key, value, headers };
}
