/** Building sink records for tests. */
import { SinkRecord } from "../../../src/connect/record.ts";
import type { Schema } from "../../../src/connect/schema.ts";
import { Struct } from "../../../src/connect/struct.ts";
import type { Header } from "../../../src/connect/headers.ts";
import { ConnectHeaders } from "../../../src/connect/headers.ts";

export interface RecordSpec {
  topic?: string;
  partition?: number;
  offset: number;
  key?: unknown;
  keySchema?: Schema | null;
  value?: unknown;
  valueSchema?: Schema | null;
  /** String headers by name. */
  headers?: Record<string, string>;
}

export function sinkRecord(spec: RecordSpec): SinkRecord {
  const headers = new ConnectHeaders();
  for (const [name, value] of Object.entries(spec.headers ?? {})) headers.addString(name, value);
  return new SinkRecord({
    topic: spec.topic ?? "incidents",
    kafkaPartition: spec.partition ?? 0,
    kafkaOffset: spec.offset,
    key: spec.key ?? null,
    keySchema: spec.keySchema ?? null,
    value: spec.value ?? null,
    valueSchema: spec.valueSchema ?? (spec.value instanceof Struct ? spec.value.schema : null),
    headers: headers as Iterable<Header>,
  });
}

/** A schemaless Map value, as the JSON converter without schemas delivers it. */
export function mapValue(entries: Record<string, unknown>): Map<string, unknown> {
  return new Map(Object.entries(entries));
}

/** `versions` records per row (values `v0`, `v1`, …), each row's versions back to back, offsets in that order. */
export function versionedRecords(rows: readonly string[], versions: number): SinkRecord[] {
  return rows.flatMap((sysId, i) =>
    Array.from({ length: versions }, (_, version) =>
      sinkRecord({
        offset: i * versions + version,
        key: sysId,
        value: mapValue({ short_description: `v${version}` }),
      }))
  );
}
