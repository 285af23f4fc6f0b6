/**
 * Records packed for a trip to the producer thread: every key, value and header byte in one ArrayBuffer (moved,
 * not copied, by postMessage's transfer list) plus a small table of numbers, instead of a structured clone of
 * thousands of small objects and Uint8Arrays. Header values shared by many records (the same Uint8Array object)
 * are stored once. Unpacking gives views into the one buffer: no further copy.
 */
import type { ProducedRecord, RecordHeaders } from "./types.ts";

/** Numbers per record in `meta`: topic, partition, timestamp, key at/length, value at/length, headers from/count. */
const RECORD_FIELDS = 9;
/** Numbers per header in `headerMeta`: name, value at, value length. */
const HEADER_FIELDS = 3;
const NONE = -1;

export interface PackedRecords {
  readonly count: number;
  readonly topics: string[];
  readonly headerNames: string[];
  readonly meta: Float64Array;
  readonly headerMeta: Float64Array;
  readonly bytes: Uint8Array;
}

const encoder = new TextEncoder();

export function packRecords(records: readonly ProducedRecord[]): PackedRecords {
  const topics = new Indexer();
  const headerNames = new Indexer();
  const stored = new Map<Uint8Array, number>();
  const meta = new Float64Array(records.length * RECORD_FIELDS);
  let headerCount = 0;
  let size = 0;
  for (const r of records) {
    size += (r.key?.byteLength ?? 0) + (r.value?.byteLength ?? 0);
    if (r.headers) {
      for (const name in r.headers) {
        headerCount++;
        const v = r.headers[name];
        size += typeof v === "string" ? v.length * 3 : v.byteLength;
      }
    }
  }
  const headerMeta = new Float64Array(headerCount * HEADER_FIELDS);
  const bytes = new Uint8Array(size);
  let at = 0;
  const put = (data: Uint8Array): number => {
    bytes.set(data, at);
    at += data.byteLength;
    return at - data.byteLength;
  };
  let h = 0;
  records.forEach((r, i) => {
    const m = i * RECORD_FIELDS;
    meta[m] = topics.of(r.topic);
    meta[m + 1] = r.partition ?? NONE;
    meta[m + 2] = r.timestamp ?? NaN;
    meta[m + 3] = r.key === null ? 0 : put(r.key);
    meta[m + 4] = r.key === null ? NONE : r.key.byteLength;
    meta[m + 5] = r.value === null ? 0 : put(r.value);
    meta[m + 6] = r.value === null ? NONE : r.value.byteLength;
    meta[m + 7] = h / HEADER_FIELDS;
    let count = 0;
    if (r.headers) {
      for (const name in r.headers) {
        const v = r.headers[name];
        let valueAt: number;
        let length: number;
        if (typeof v === "string") {
          const written = encoder.encodeInto(v, bytes.subarray(at));
          valueAt = at;
          length = written.written;
          at += length;
        } else {
          let known = stored.get(v);
          if (known === undefined) stored.set(v, known = put(v));
          valueAt = known;
          length = v.byteLength;
        }
        headerMeta[h++] = headerNames.of(name);
        headerMeta[h++] = valueAt;
        headerMeta[h++] = length;
        count++;
      }
    }
    meta[m + 8] = count;
  });
  return {
    count: records.length,
    topics: topics.list,
    headerNames: headerNames.list,
    meta,
    headerMeta,
    bytes: bytes.subarray(0, at),
  };
}

/** The buffers `postMessage` should move rather than copy. */
export function transferablesOf(packed: PackedRecords): ArrayBuffer[] {
  return [packed.meta.buffer, packed.headerMeta.buffer, packed.bytes.buffer] as ArrayBuffer[];
}

export function unpackRecords(packed: PackedRecords): ProducedRecord[] {
  const { meta, headerMeta, bytes, topics, headerNames } = packed;
  const out: ProducedRecord[] = new Array(packed.count);
  for (let i = 0; i < packed.count; i++) {
    const m = i * RECORD_FIELDS;
    const record: ProducedRecord = {
      topic: topics[meta[m]],
      key: meta[m + 4] === NONE ? null : bytes.subarray(meta[m + 3], meta[m + 3] + meta[m + 4]),
      value: meta[m + 6] === NONE ? null : bytes.subarray(meta[m + 5], meta[m + 5] + meta[m + 6]),
    };
    if (meta[m + 1] !== NONE) record.partition = meta[m + 1];
    if (!Number.isNaN(meta[m + 2])) record.timestamp = meta[m + 2];
    const count = meta[m + 8];
    if (count > 0) {
      const headers: RecordHeaders = {};
      for (let j = 0, h = meta[m + 7] * HEADER_FIELDS; j < count; j++, h += HEADER_FIELDS) {
        headers[headerNames[headerMeta[h]]] = bytes.subarray(
          headerMeta[h + 1],
          headerMeta[h + 1] + headerMeta[h + 2],
        );
      }
      record.headers = headers;
    }
    out[i] = record;
  }
  return out;
}

/** Strings to small numbers, in first-seen order. */
class Indexer {
  readonly list: string[] = [];
  readonly #index = new Map<string, number>();
  of(value: string): number {
    let i = this.#index.get(value);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(value);
      this.#index.set(value, i);
    }
    return i;
  }
}
