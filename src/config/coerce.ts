/** Parses a raw string value into its typed value as Kafka Connect's ConfigDef.parseType does. */
import type { PropertyDef } from "./def.ts";
import type { PropValue } from "../common/props.ts";

export type Coerced = { ok: true; value: PropValue } | { ok: false; reason: string };

const INTEGER = /^[+-]?\d+$/;

/** Splits a Connect LIST value: comma-separated, entries trimmed, an empty string is the empty list. */
export function splitList(raw: string): string[] {
  const trimmed = raw.trim();
  return trimmed === "" ? [] : trimmed.split(",").map((s) => s.trim());
}

export function coerce(def: PropertyDef, raw: string | null): Coerced {
  if (raw === null) return { ok: true, value: null };
  const text = raw.trim();
  switch (def.type) {
    case "STRING":
    case "CLASS":
      return { ok: true, value: text };
    case "PASSWORD":
      // Passwords are taken verbatim: leading or trailing spaces may be part of them.
      return { ok: true, value: raw };
    case "BOOLEAN": {
      const lower = text.toLowerCase();
      if (lower === "true" || lower === "false") return { ok: true, value: lower === "true" };
      return { ok: false, reason: "Expected value to be either true or false" };
    }
    case "INT":
    case "SHORT":
    case "LONG": {
      if (!INTEGER.test(text)) return { ok: false, reason: `Not a number of type ${def.type}` };
      const n = Number(text);
      const limit = def.type === "SHORT" ? 2 ** 15 : def.type === "INT" ? 2 ** 31 : 2 ** 63;
      if (n < -limit || n >= limit || !Number.isSafeInteger(n) && def.type !== "LONG") {
        return { ok: false, reason: `Not a number of type ${def.type}` };
      }
      return { ok: true, value: n };
    }
    case "DOUBLE": {
      const n = Number(text);
      if (text === "" || Number.isNaN(n)) return { ok: false, reason: "Not a number of type DOUBLE" };
      return { ok: true, value: n };
    }
    case "LIST":
      return { ok: true, value: splitList(raw) };
  }
}

/** Renders a typed value back to Connect's string form (lists joined with commas). */
export function render(value: PropValue): string | null {
  if (value === null) return null;
  if (Array.isArray(value)) return value.join(",");
  return String(value);
}
