/**
 * Kafka Connect's offset key: `["<connector>",{partition}]`, the JSON that Connect's internal JsonConverter
 * (schemas disabled) writes for `Arrays.asList(connectorName, partition)` — compact, no whitespace, and written
 * by our JsonConverter, so strings are escaped exactly as Jackson escapes them (a character beyond the BMP as two
 * `\uXXXX` surrogates, control characters in upper-case hex), which JSON.stringify does not do.
 *
 * We write keys in exactly that form, but never compare raw bytes: Java Connect serialises a HashMap, so field
 * order (and number or escape spelling) differs between implementations. Keys are matched by their canonical
 * form: parsed, object fields sorted, re-serialised.
 */
import { JsonConverter } from "../../connect/converters/json/json_converter.ts";
import { isPlainObject } from "../../common/plain_object.ts";
import type { SourceOffset, SourcePartition } from "../../connect/record.ts";

/** The worker's internal converter: JsonConverter with schemas disabled, as Connect's offset writer uses. */
const internalConverter = new JsonConverter();
internalConverter.configure({ "schemas.enable": "false" }, true);

/** The key as Connect writes it: `["jira",{"table":"incident"}]`. */
export function serializeOffsetKey(connector: string, partition: SourcePartition): string {
  return internalConverter.toJsonText(null, [connector, partition]);
}

/** An offset as Connect writes it to the offsets topic: `{"timestamp":"…","sys_id":"…"}`. */
export function serializeOffsetValue(offset: SourceOffset): string {
  return internalConverter.toJsonText(null, offset);
}

/** JSON with object fields sorted recursively, so equal values give equal strings whatever their field order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortFields(value));
}

function sortFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortFields);
  if (isPlainObject(value)) {
    const sorted: Record<string, unknown> = {};
    for (const field of Object.keys(value).sort()) {
      // defineProperty keeps a field named "__proto__" as data instead of setting the prototype.
      Object.defineProperty(sorted, field, {
        value: sortFields(value[field]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return sorted;
  }
  return value;
}

/** The identity of a connector's partition in every in-memory map. */
export function canonicalOffsetKey(connector: string, partition: SourcePartition): string {
  return canonicalJson([connector, partition]);
}

/** A key read from stored data: either its parts, or why it is not a Connect offset key. */
export type ParsedOffsetKey =
  | { readonly ok: true; readonly connector: string; readonly partition: Record<string, unknown> }
  | { readonly ok: false; readonly problem: string };

/**
 * Checks an already JSON-parsed key the way Connect's OffsetUtils.processPartitionKey does:
 * a list of exactly two elements, a string and an object.
 */
export function parseOffsetKey(key: unknown): ParsedOffsetKey {
  if (!Array.isArray(key)) return { ok: false, problem: `expected a JSON list, got ${describe(key)}` };
  if (key.length !== 2) return { ok: false, problem: `expected 2 elements, got ${key.length}` };
  const [connector, partition] = key;
  if (typeof connector !== "string") {
    return { ok: false, problem: `expected a string as the first element, got ${describe(connector)}` };
  }
  if (!isPlainObject(partition)) {
    return { ok: false, problem: `expected an object as the second element, got ${describe(partition)}` };
  }
  return { ok: true, connector, partition };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
