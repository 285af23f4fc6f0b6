/**
 * The 64-bit digest of what a record sent for a row: its value as the connector built it (before transforms and
 * converters; with the envelope, its `after`), written as canonical text (struct fields in schema order, map
 * keys sorted, bytes as hex) and hashed with two independent 32-bit lanes (cyrb53's mixing, widened to 64 bits).
 * A reconcile pass digests the row it reads the same way: equal digests mean the topic holds that content.
 */
import { Struct } from "../../connect/struct.ts";

/** The value's digest as 16 hex digits. */
export function valueDigest(value: unknown): string {
  return hash64(canonicalText(rowPart(value)));
}

/** With the envelope, the row is its `after`; otherwise the value itself. */
export function rowPart(value: unknown): unknown {
  if (value instanceof Struct && value.schema.field("after") && value.schema.field("op")) {
    return value.get("after");
  }
  if (
    value !== null && typeof value === "object" && !(value instanceof Struct) && "after" in value &&
    "op" in value
  ) {
    return (value as Record<string, unknown>).after;
  }
  return value;
}

/** Canonical text of a Connect value: equal values give equal text, whatever their map key order. */
export function canonicalText(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (value instanceof Struct) {
    return "{" + value.schema.fields().map((f) =>
      JSON.stringify(f.name) + ":" + canonicalText(value.get(f.name))
    )
      .join(",") +
      "}";
  }
  if (value instanceof Uint8Array) {
    return "0x" + [...value].map((b) => b.toString(16).padStart(2, "0")).join("");
  }
  if (value instanceof Date) return `date:${value.getTime()}`;
  if (Array.isArray(value)) return "[" + value.map(canonicalText).join(",") + "]";
  if (value instanceof Map) {
    return "{" + [...value].map(([k, v]) =>
      [String(k), v] as const
    ).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => JSON.stringify(k) + ":" + canonicalText(v)).join(",") +
      "}";
  }
  if (typeof value === "object") {
    return "{" + Object.keys(value).sort().map((k) =>
      JSON.stringify(k) + ":" + canonicalText((value as Record<string, unknown>)[k])
    ).join(",") + "}";
  }
  if (typeof value === "bigint") return `${value}n`;
  return JSON.stringify(value) ?? String(value);
}

/** Two 32-bit lanes over the UTF-16 code units of `text`, as 16 hex digits. */
export function hash64(text: string): string {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h1 >>> 0).toString(16).padStart(8, "0") + (h2 >>> 0).toString(16).padStart(8, "0");
}
