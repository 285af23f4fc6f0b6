/**
 * kafkajs's Record v0, sized and written into a buffer, byte for byte as kafkajs writes it (the produce encoder,
 * produce_encoder.ts, plans each batch with `recordBodySize` and writes its records with `writeRecord`).
 * Anything this does not handle the same way (keys, values or headers that are not Buffers or strings, timestamp
 * deltas outside int32) is sized NaN, so the request goes to kafkajs's own encoder.
 */
import { Buffer } from "node:buffer";

const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;

type Bytes = Buffer | string;
export interface Message {
  key?: Bytes | null;
  value?: Bytes | null;
  timestamp?: string | number;
  headers?: Record<string, Bytes | Bytes[]>;
}

function sizeOfUVarInt(value: number): number {
  let bytes = 1;
  while ((value & 0xffffff80) !== 0) {
    bytes++;
    value >>>= 7;
  }
  return bytes;
}

const zigZag = (value: number) => ((value << 1) ^ (value >> 31)) >>> 0;
export const sizeOfVarInt = (value: number) => sizeOfUVarInt(zigZag(value));

function writeUVarInt(buf: Buffer, at: number, value: number): number {
  while ((value & 0xffffff80) !== 0) {
    buf[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  buf[at++] = value & 0x7f;
  return at;
}

/** UTF-8 bytes of header names (a handful of distinct names, used by every record). */
const headerNames = new Map<string, Buffer>();
function headerNameBytes(name: string): Buffer {
  let bytes = headerNames.get(name);
  if (bytes === undefined) {
    bytes = Buffer.from(name, "utf8");
    if (headerNames.size < 1024) headerNames.set(name, bytes);
  }
  return bytes;
}

/** Bytes of a key, value or header value, or -1 when kafkajs would write null; NaN when not handled here. */
function sizeOfBytes(value: unknown, nullable: boolean): number {
  if (Buffer.isBuffer(value)) return value.length;
  if (typeof value === "string") return Buffer.byteLength(value, "utf8");
  if (nullable && value == null) return -1;
  return NaN;
}

function sizeOfVarIntBytes(size: number): number {
  return size < 0 ? 1 : sizeOfVarInt(size) + size;
}

/** A message's record body size (kafkajs's sizeOfBody), or NaN when this module leaves it to kafkajs. */
export function recordBodySize(message: Message, offsetDelta: number, timestampDelta: number): number {
  if (!Number.isInteger(timestampDelta) || timestampDelta < INT32_MIN || timestampDelta > INT32_MAX) {
    return NaN;
  }
  const size = 1 + sizeOfVarInt(timestampDelta) + sizeOfVarInt(offsetDelta) +
    sizeOfVarIntBytes(sizeOfBytes(message.key, true)) + sizeOfVarIntBytes(sizeOfBytes(message.value, true));
  const headers = message.headers;
  if (headers === undefined) return size + sizeOfVarInt(0);
  if (headers === null || typeof headers !== "object") return NaN;
  return size + (sharedHeaders(headers)?.length ?? headersSize(headers));
}

/**
 * The encoded headers (their count, then each name and value) of a headers object seen before: the records of a
 * source's page share one headers object (producer.ts builds it once, and never changes it), so theirs are
 * encoded once and copied, not counted and written header by header for each record. A headers object is
 * encoded the second time it is seen in a row, so records with headers of their own cost nothing more.
 */
function sharedHeaders(headers: Headers): Buffer | undefined {
  const known = encodedHeaders.get(headers);
  if (known !== undefined || headers !== lastHeaders) {
    lastHeaders = headers;
    return known;
  }
  const size = headersSize(headers);
  if (Number.isNaN(size)) return undefined;
  const bytes = Buffer.allocUnsafe(size);
  writeHeaders(bytes, 0, headers);
  encodedHeaders.set(headers, bytes);
  return bytes;
}

type Headers = NonNullable<Message["headers"]>;
const encodedHeaders = new WeakMap<Headers, Buffer>();
let lastHeaders: Headers | null = null;

/** The size of a record's headers as written (count and pairs), or NaN when this module leaves them to kafkajs. */
function headersSize(headers: Headers): number {
  let size = 0;
  let count = 0;
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    const nameSize = Buffer.byteLength(name, "utf8");
    for (const v of Array.isArray(value) ? value : [value]) {
      const valueSize = sizeOfBytes(v, false);
      size += sizeOfVarInt(nameSize) + nameSize + sizeOfVarInt(valueSize) + valueSize;
      count++;
    }
  }
  return size + sizeOfVarInt(count);
}

function writeBytes(buf: Buffer, at: number, value: unknown): number {
  if (value == null) return writeUVarInt(buf, at, zigZag(-1));
  if (typeof value === "string") {
    const length = Buffer.byteLength(value, "utf8");
    at = writeUVarInt(buf, at, zigZag(length));
    return at + buf.write(value, at, length, "utf8");
  }
  const bytes = value as Buffer;
  at = writeUVarInt(buf, at, zigZag(bytes.length));
  buf.set(bytes, at);
  return at + bytes.length;
}

/** kafkajs's Record v0: length, attributes, timestamp and offset deltas, key, value, headers. */
export function writeRecord(
  buf: Buffer,
  at: number,
  message: Message,
  bodySize: number,
  offsetDelta: number,
  timestampDelta: number,
): number {
  at = writeUVarInt(buf, at, zigZag(bodySize));
  buf[at++] = 0;
  at = writeUVarInt(buf, at, zigZag(timestampDelta));
  at = writeUVarInt(buf, at, zigZag(offsetDelta));
  at = writeBytes(buf, at, message.key);
  at = writeBytes(buf, at, message.value);
  const headers = message.headers;
  if (headers === undefined) return writeUVarInt(buf, at, zigZag(0));
  const shared = sharedHeaders(headers);
  if (shared === undefined) return writeHeaders(buf, at, headers);
  buf.set(shared, at);
  return at + shared.length;
}

/** A record's headers: their count, then each name and value. */
function writeHeaders(buf: Buffer, at: number, headers: Headers): number {
  const names = Object.keys(headers);
  let count = 0;
  for (const name of names) {
    const value = headers[name];
    count += Array.isArray(value) ? value.length : 1;
  }
  at = writeUVarInt(buf, at, zigZag(count));
  for (const name of names) {
    const value = headers[name];
    const nameBytes = headerNameBytes(name);
    for (const v of Array.isArray(value) ? value : [value]) {
      at = writeUVarInt(buf, at, zigZag(nameBytes.length));
      buf.set(nameBytes, at);
      at += nameBytes.length;
      at = writeBytes(buf, at, v);
    }
  }
  return at;
}
