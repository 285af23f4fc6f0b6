/**
 * Which table a record is written to (`svc.sink.routing.mode`):
 * - `fixed`: `svc.sink.table`;
 * - `topic_map`: `svc.sink.topic.<topic>.table` for the record's topic (as transforms left it, else the topic
 *   it was consumed from);
 * - `header`: the header named by `svc.sink.table.header`, accepted only when listed in
 *   `svc.sink.table.allowlist`, so a producer cannot write to any table the integration user can.
 */
import type { SinkRecord } from "../connect/record.ts";
import { describeValueType } from "../connect/struct.ts";
import { MappingError } from "./record_error.ts";
import type { RoutingSettings } from "./settings.ts";

export function routeRecord(record: SinkRecord, routing: RoutingSettings): string {
  switch (routing.mode) {
    case "fixed":
      return routing.table;
    case "topic_map": {
      const table = routing.tables.get(record.topic) ?? routing.tables.get(record.originalTopic);
      if (table === undefined) {
        throw new MappingError(
          `no table is mapped for topic "${record.topic}" (svc.sink.topic.${record.topic}.table)`,
        );
      }
      return table;
    }
    case "header": {
      const table = headerText(record, routing.header);
      if (table === null) {
        throw new MappingError(`the record has no "${routing.header}" header naming its table`);
      }
      if (!routing.allowlist.has(table)) {
        throw new MappingError(
          `header "${routing.header}" names table "${table}", which is not in svc.sink.table.allowlist`,
        );
      }
      return table;
    }
  }
}

/** The latest header of that name as text (strings, or UTF-8 bytes from a byte-array header converter). */
export function headerText(record: SinkRecord, name: string): string | null {
  const header = record.headers.lastWithName(name);
  if (header === null || header.value === null || header.value === undefined) return null;
  const value = header.value;
  if (typeof value === "string") return value.trim() === "" ? null : value.trim();
  if (value instanceof Uint8Array) return decode(value, name);
  throw new MappingError(`header "${name}" is a ${describeValueType(value)}, not a String`);
}

function decode(bytes: Uint8Array, name: string): string | null {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes).trim();
  } catch {
    throw new MappingError(`header "${name}" is not UTF-8 text`);
  }
  return text === "" ? null : text;
}
