/**
 * A JSON Schema (draft-07, what editors' YAML/JSON language servers understand best) of the config file,
 * generated from the property definitions: types, enums, ranges and patterns, defaults, descriptions, and the
 * per-alias / per-topic keys as patternProperties. `tablesync schema` prints it; docs/tablesync.schema.json is
 * the committed copy the example configs point at.
 *
 * The schema accepts what the loader accepts (numbers and booleans for strings of digits or true/false, lists as
 * YAML sequences or comma-separated strings, `${env:..}`/`${file:..}` placeholders anywhere) and rejects what a
 * single property's validation rejects. Cross-property rules (required-when, collisions) stay with `validate`.
 */
import type { PropertyDef } from "./def.ts";
import { staticDefs } from "./catalog.ts";
import { coerce } from "./coerce.ts";
import { type ConnectorType, KNOWN_CLASS_NAMES } from "./connector_class.ts";
import { PASS_THROUGH_PREFIXES } from "./defs/framework.ts";
import { REPORTER_PRODUCER_PREFIX, sinkTopicTableDef } from "./defs/sink.ts";
import { tableDefs } from "./defs/table.ts";
import { WORKER_DEFS, WORKER_PASS_THROUGH_PREFIXES } from "./worker.ts";

type Schema = Record<string, unknown>;

/** A string holding a placeholder is resolved at start; its value cannot be checked here. */
const PLACEHOLDER: Schema = { type: "string", pattern: "\\$\\{(env|file):[^}]*\\}" };
/** What the loader accepts for a key without a definition: a scalar or a list of scalars. */
const ANY_VALUE: Schema = {
  anyOf: [{ type: "string" }, { type: "number" }, { type: "boolean" }, {
    type: "array",
    items: { anyOf: [{ type: "string" }, { type: "number" }, { type: "boolean" }] },
  }],
};
/** Stand-ins for the variable segment of dynamic keys; replaced by a pattern in the generated key regex. */
const ALIAS_SLOT = "ALIAS0SLOT";
const TOPIC_SLOT = "TOPIC0SLOT";

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A comma-separated list whose every entry matches an anchored item pattern. */
function listPattern(itemPattern: string): string | undefined {
  const m = /^\^(.*)\$$/.exec(itemPattern);
  if (!m) return undefined;
  const item = `(?:${m[1]})`;
  return `^\\s*(?:${item}(?:\\s*,\\s*${item})*)?\\s*$`;
}

function valueSchema(def: PropertyDef): Schema {
  const rule = { ...(def.validator?.schema ?? {}) };
  switch (def.type) {
    case "BOOLEAN":
      return {
        anyOf: [{ type: "boolean" }, {
          type: "string",
          pattern: "^\\s*([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])\\s*$",
        }],
      };
    case "INT":
    case "SHORT":
    case "LONG":
      return { anyOf: [{ type: "integer", ...rule }, { type: "string", pattern: "^\\s*[+-]?\\d+\\s*$" }] };
    case "DOUBLE":
      return {
        anyOf: [{ type: "number", ...rule }, { type: "string", pattern: "^\\s*[+-]?[\\d.eE+-]+\\s*$" }],
      };
    case "LIST": {
      const stringForm: Schema = { type: "string" };
      const pattern = typeof rule.pattern === "string" ? listPattern(rule.pattern) : undefined;
      if (pattern) stringForm.pattern = pattern;
      return {
        anyOf: [stringForm, {
          type: "array",
          items: { anyOf: [{ type: "string", ...rule }, { type: "number" }, { type: "boolean" }] },
        }],
      };
    }
    default:
      if (def.validValues) return { enum: [...def.validValues] };
      return { type: "string", ...rule };
  }
}

/** The typed default, as the schema's `default` (what an editor offers on completion). */
function defaultOf(def: PropertyDef): unknown {
  if (def.default === undefined || def.default === null) return undefined;
  const parsed = coerce(def, def.default);
  if (!parsed.ok) return def.default;
  return def.type === "LIST" ? def.default : parsed.value;
}

function propertySchema(def: PropertyDef): Schema {
  const value = valueSchema(def);
  const alternatives = Array.isArray(value.anyOf) ? value.anyOf : [value];
  const out: Schema = {
    description: def.documentation,
    anyOf: [...alternatives, PLACEHOLDER],
  };
  const fallback = defaultOf(def);
  if (fallback !== undefined) out.default = fallback;
  return out;
}

function properties(defs: readonly PropertyDef[]): Schema {
  return Object.fromEntries(defs.map((d) => [d.name, propertySchema(d)]));
}

/** patternProperties for keys with a variable segment (an alias, a topic). */
function dynamicProperties(defs: readonly PropertyDef[], slot: string, segment: string): Schema {
  return Object.fromEntries(
    defs.map((d) => [`^${escapeRegex(d.name).replace(slot, segment)}$`, propertySchema(d)]),
  );
}

function prefixes(list: readonly string[]): Schema {
  return Object.fromEntries(list.map((p) => [`^${escapeRegex(p)}`, ANY_VALUE]));
}

function connectorSchema(type: ConnectorType): Schema {
  // `name` comes from the entry around the config; it may be repeated but need not be.
  const defs = staticDefs(type);
  const dynamic = type === "source"
    ? dynamicProperties(tableDefs(ALIAS_SLOT), ALIAS_SLOT, "[a-z][a-z0-9_]*")
    : dynamicProperties([sinkTopicTableDef(TOPIC_SLOT)], TOPIC_SLOT, ".+");
  const passThrough = [...PASS_THROUGH_PREFIXES, ...(type === "sink" ? [REPORTER_PRODUCER_PREFIX] : [])];
  return {
    type: "object",
    required: defs.filter((d) => d.default === undefined && d.name !== "name").map((d) => d.name),
    properties: properties(defs),
    patternProperties: {
      ...dynamic,
      ...prefixes(passThrough),
      // Connect accepts keys it does not know; an unknown svc.* key is a mistake (as validate reports).
      "^(?!svc\\.)": ANY_VALUE,
    },
    additionalProperties: false,
  };
}

function classIs(names: readonly string[]): Schema {
  return { properties: { "connector.class": { enum: [...names] } }, required: ["connector.class"] };
}

export function configFileSchema(): Schema {
  const sourceNames = KNOWN_CLASS_NAMES.filter((n) => n.endsWith("SourceConnector"));
  const sinkNames = KNOWN_CLASS_NAMES.filter((n) => n.endsWith("SinkConnector"));
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: "https://tablesync.dev/schema/tablesync.schema.json",
    title: "tablesync config file",
    description: "Generated from the property definitions by `tablesync schema`; see docs/configuration.md.",
    type: "object",
    additionalProperties: false,
    properties: {
      worker: {
        description: "Daemon-wide settings (Kafka Connect's worker key names).",
        type: "object",
        properties: properties(WORKER_DEFS),
        patternProperties: prefixes(WORKER_PASS_THROUGH_PREFIXES),
        additionalProperties: ANY_VALUE,
      },
      connectors: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["name", "config"],
          properties: {
            name: {
              type: "string",
              minLength: 1,
              pattern: "\\S",
              description: "The connector's unique name.",
            },
            config: {
              description: "The connector's flat property map; connector.class selects the property set.",
              type: "object",
              required: ["connector.class"],
              properties: {
                "connector.class": { anyOf: [{ enum: KNOWN_CLASS_NAMES }, PLACEHOLDER] },
              },
              allOf: [
                { if: classIs(sourceNames), then: { $ref: "#/definitions/source" } },
                { if: classIs(sinkNames), then: { $ref: "#/definitions/sink" } },
              ],
            },
          },
        },
      },
    },
    definitions: {
      source: connectorSchema("source"),
      sink: connectorSchema("sink"),
    },
  };
}

/** The schema as committed in docs/tablesync.schema.json (stable key order, trailing newline). */
export function renderConfigFileSchema(): string {
  return JSON.stringify(configFileSchema(), null, 2) + "\n";
}
