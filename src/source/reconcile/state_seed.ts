/**
 * Seeds a table's reconcile state from its topic: the first pass of a table whose state has no seed marker
 * (reconcile just enabled on an existing topic, or the state topic new) reads the topic's latest state, as
 * `tablesync verify` does (decoded with the connector's converters), and writes an entry per key (a tombstone
 * or a delete envelope deletes it), then the marker. The pass then compares the table with what the topic
 * holds instead of sending every row as missing. Nothing is held in memory: entries are written in the
 * topic's order, so the latest record of each key writes the latest entry, and the read waits for Kafka to
 * acknowledge every `FLUSH_EVERY` entries (reading a topic is far faster than writing it: without that wait the
 * whole topic's entries queued in memory, 705 MiB of RSS seeding a 1,000,000-row table).
 */
import { Struct } from "../../connect/struct.ts";
import { rowPart, valueDigest } from "./digest.ts";
import type { StateRecorder } from "./state_recorder.ts";

/** Entries written between two waits for their acknowledgement. */
const FLUSH_EVERY = 5000;

export interface SeedOptions {
  readonly recorder: StateRecorder;
  readonly tableId: string;
  readonly topic: string;
  readonly timestampField: string;
  readonly modCountField: string;
  readonly read: (
    topic: string,
    visit: (key: unknown, value: unknown) => void | Promise<void>,
  ) => Promise<void>;
}

/** The key of a table's seed marker (partition 0): the table's state reflects its topic. */
export function seedMarkerKey(tableId: string): string {
  return `${tableId}|`;
}

/** Seeds the state; returns the records read. */
export async function seedState(o: SeedOptions): Promise<number> {
  let records = 0;
  const state = o.recorder.state;
  await o.read(o.topic, (key, value) => {
    if (typeof key !== "string" || key === "") return;
    records++;
    const row = value === null ? null : rowPart(value);
    o.recorder.write(
      o.tableId,
      key,
      row === null || row === undefined ? null : {
        u: fieldText(row, o.timestampField),
        m: fieldText(row, o.modCountField),
        d: valueDigest(value),
      },
    );
    if (records % FLUSH_EVERY === 0) return state.flush();
  });
  await state.flush();
  state.write([{ partition: 0, key: seedMarkerKey(o.tableId), value: JSON.stringify({ seeded: true }) }]);
  await state.flush();
  return records;
}

function fieldText(row: unknown, name: string): string {
  let v: unknown;
  if (row instanceof Struct) v = row.schema.field(name) ? row.get(name) : undefined;
  else if (row instanceof Map) v = row.get(name);
  else if (row !== null && typeof row === "object") v = (row as Record<string, unknown>)[name];
  if (v !== null && typeof v === "object" && "value" in v) v = (v as { value: unknown }).value;
  return v === null || v === undefined ? "" : String(v);
}
