/** Reusable validators for property definitions. Each returns a reason string or undefined. */
import type { Validator } from "./def.ts";
import type { PropValue } from "../common/props.ts";
import { MAX_TOPIC_NAME_LENGTH, TOPIC_NAME_PATTERN, topicNameProblem } from "../common/topic_name.ts";

function described(
  fn: (v: PropValue) => string | undefined,
  describe: string,
  schema?: Record<string, unknown>,
): Validator {
  return Object.assign(fn, { describe, schema });
}

/** A number within [min, max] (either bound optional). Null passes (optional properties). */
export function range(min?: number, max?: number): Validator {
  const text = min !== undefined && max !== undefined
    ? `[${min},...,${max}]`
    : min !== undefined
    ? `[${min},...]`
    : `[...,${max}]`;
  return described(
    (v) => {
      if (v === null || typeof v !== "number") return undefined;
      if (min !== undefined && v < min) return `Value must be at least ${min}`;
      if (max !== undefined && v > max) return `Value must be no more than ${max}`;
      return undefined;
    },
    text,
    { ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}) },
  );
}

/** A topic's partitions or replication factor for creation: at least 1, or -1 for the broker's default (KIP-464). */
export const positiveOrBrokerDefault: Validator = described(
  (v) => {
    if (v === null || typeof v !== "number") return undefined;
    return v >= 1 || v === -1 ? undefined : "Value must be at least 1, or -1 for the broker's default";
  },
  "[1,...] or -1",
  { anyOf: [{ minimum: 1 }, { const: -1 }] },
);

const TOPIC_NAME_CHARS = `1 to ${MAX_TOPIC_NAME_LENGTH} of a-z A-Z 0-9 . _ -`;
const TOPIC_NAME_SCHEMA = { pattern: TOPIC_NAME_PATTERN.source, maxLength: MAX_TOPIC_NAME_LENGTH };

/** A name a topic can have (a source's destination topic). */
export const topicName: Validator = described(
  (v) => {
    if (v === null || typeof v !== "string") return undefined;
    const problem = topicNameProblem(v);
    return problem ? `not a valid topic name: it ${problem}` : undefined;
  },
  `a Kafka topic name (${TOPIC_NAME_CHARS})`,
  TOPIC_NAME_SCHEMA,
);

/** A topic name, or blank for none (the dead letter queue, a reporter topic): it is produced to, maybe created. */
export const topicNameOrBlank: Validator = described(
  (v) => v === "" ? undefined : topicName(v),
  `blank, or a Kafka topic name (${TOPIC_NAME_CHARS})`,
  { pattern: `^(?:${TOPIC_NAME_PATTERN.source.slice(1, -1)})?$`, maxLength: MAX_TOPIC_NAME_LENGTH },
);

/** Topic names (a sink's `topics`): each one a name a topic can have. */
export const topicNameList: Validator = described(
  (v) => {
    if (!Array.isArray(v)) return undefined;
    const bad = v.map((t) => [t, topicNameProblem(t)]).filter(([, problem]) => problem);
    if (bad.length === 0) return undefined;
    return bad.map(([t, problem]) => `'${t}' is not a valid topic name: it ${problem}`).join("; ");
  },
  `Kafka topic names (each ${TOPIC_NAME_CHARS})`,
  TOPIC_NAME_SCHEMA,
);

/** A non-empty string. */
export const nonEmpty: Validator = described(
  (v) => {
    if (v === null) return undefined;
    if (typeof v === "string" && v.trim() === "") return "String must be non-empty";
    return undefined;
  },
  "non-empty string",
  { minLength: 1, pattern: "\\S" },
);

/** Names of tables, aliases and fields: lower-case letters, digits and underscores, starting with a letter. */
export const IDENTIFIER = /^[a-z][a-z0-9_]*$/;

export const identifier: Validator = described(
  (v) => {
    if (v === null || typeof v !== "string") return undefined;
    if (v === "") return "String must be non-empty";
    if (!IDENTIFIER.test(v)) {
      return "must use only lower-case letters, digits and underscores, starting with a letter";
    }
    return undefined;
  },
  "lower-case letters, digits, underscores",
  { pattern: IDENTIFIER.source },
);

/** A list whose every entry is an identifier. */
export const identifierList: Validator = described(
  (v) => {
    if (!Array.isArray(v)) return undefined;
    const bad = v.filter((s) => !IDENTIFIER.test(s));
    if (bad.length > 0) {
      return `entries ${
        bad.map((b) => `'${b}'`).join(", ")
      } must use only lower-case letters, digits and underscores, starting with a letter`;
    }
    return undefined;
  },
  "lower-case letters, digits, underscores",
  { pattern: IDENTIFIER.source },
);

/** `yyyy-MM-dd HH:mm:ss` that is a real UTC date-time. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

export function parseDateTimeUtc(text: string): number | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  if (
    back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d ||
    h > 23 || mi > 59 || s > 59
  ) return undefined;
  return ms;
}

export const dateTime: Validator = described(
  (v) => {
    if (v === null || typeof v !== "string") return undefined;
    return parseDateTimeUtc(v) === undefined
      ? "must be a UTC date-time in the form yyyy-MM-dd HH:mm:ss"
      : undefined;
  },
  "yyyy-MM-dd HH:mm:ss (UTC)",
  { pattern: DATE_TIME.source },
);

/** An http(s) URL. */
export const httpUrl: Validator = described(
  (v) => {
    if (v === null || typeof v !== "string" || v === "") {
      return v === "" ? "String must be non-empty" : undefined;
    }
    try {
      const u = new URL(v);
      if (u.protocol !== "http:" && u.protocol !== "https:") return "must be an http:// or https:// URL";
      return undefined;
    } catch {
      return "must be an http:// or https:// URL";
    }
  },
  "http:// or https:// URL",
  { pattern: "^https?://" },
);

/** A list of `from:to` pairs. */
export const pairList: Validator = described(
  (v) => {
    if (!Array.isArray(v)) return undefined;
    const bad = v.filter((entry) => !/^[^:\s]+:[^:\s]+$/.test(entry));
    return bad.length > 0
      ? `entries ${bad.map((b) => `'${b}'`).join(", ")} must have the form from:to`
      : undefined;
  },
  "list of from:to",
  { pattern: "^[^:\\s]+:[^:\\s]+$" },
);

/** A Java regular expression we can compile (RegExp syntax covers the common subset). */
export const regex: Validator = described((v) => {
  if (v === null || typeof v !== "string" || v === "") return undefined;
  try {
    new RegExp(v);
    return undefined;
  } catch (e) {
    return `is not a valid regular expression (${(e as Error).message})`;
  }
}, "regular expression");
