/**
 * The sink's settings, read once from the typed connector properties. Defaults live in the property
 * definitions (src/config/defs/sink.ts): every defined name is present here with its default applied, so this
 * file only checks types and names the property when a value is unusable.
 */
import { ConfigError } from "../common/config_error.ts";
import { PropReader } from "../common/prop_reader.ts";
import type { TypedProps } from "../common/props.ts";
import { SINK_TOPIC_PREFIX } from "../config/defs/sink.ts";
import type { VerifySettings } from "./write_verify.ts";
import { type ApiErrorBehavior, effectiveApiErrorBehavior } from "../config/record_error_handling.ts";

export type RoutingSettings =
  | { mode: "fixed"; table: string }
  | { mode: "topic_map"; tables: ReadonlyMap<string, string> }
  | { mode: "header"; header: string; allowlist: ReadonlySet<string> };

export type Operation = "create" | "update" | "upsert" | "delete";

export type OperationSettings =
  | { mode: "key_value" }
  | { mode: "header"; header: string }
  | { mode: "fixed"; operation: Operation };

export type NullBehavior = "omit" | "clear" | "reject";
export type NestedBehavior = "reject" | "flatten" | "stringify";
export type UnknownFieldBehavior = "fail" | "drop" | "passthrough";
export type NotFoundBehavior = "fail" | "ignore" | "create";
export type AmbiguousCreateBehavior = "fail_ambiguous" | "retry" | "correlation_lookup";
export type { ApiErrorBehavior };

export interface FieldRuleSettings {
  /** `svc.sink.field.rename`: from → to. */
  renames: ReadonlyMap<string, string>;
  /** `svc.sink.field.allowlist`, or null when unset. */
  allowlist: ReadonlySet<string> | null;
  /** `svc.sink.field.denylist`, or null when unset. */
  denylist: ReadonlySet<string> | null;
  /** Stripped from every body: the reserved system fields and the operation header's name. */
  reserved: ReadonlySet<string>;
  nullBehavior: NullBehavior;
  nestedBehavior: NestedBehavior;
  flattenDelimiter: string;
  unknownFieldBehavior: UnknownFieldBehavior;
}

export interface ReporterSettings {
  bootstrapServers: readonly string[];
  successTopic: string | null;
  errorTopic: string | null;
}

/** How often and how patiently an ambiguous create is sent again (`retry` and `correlation_lookup`). */
export interface ResendSettings {
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
}

export interface SinkSettings {
  routing: RoutingSettings;
  operation: OperationSettings;
  notFound: NotFoundBehavior;
  updateMethod: "PATCH" | "PUT";
  sysIdKeyField: string;
  ambiguousCreate: AmbiguousCreateBehavior;
  correlationField: string | null;
  maxInFlight: number;
  /** Records per Batch API request, or null to write one request per record. */
  batchMaxRecords: number | null;
  onApiErrors: ApiErrorBehavior;
  fields: FieldRuleSettings;
  verify: VerifySettings;
  reporter: ReporterSettings;
  resend: ResendSettings;
}

/** The system fields the instance maintains itself; `sys_id` is the row's address, never a body field. */
const RESERVED_FIELDS: readonly string[] = [
  "sys_id",
  "sys_created_on",
  "sys_updated_on",
  "sys_mod_count",
  "sys_created_by",
  "sys_updated_by",
];

export function sinkSettingsFromProps(props: TypedProps): SinkSettings {
  const read = new PropReader(props, (message) => new ConfigError(message));
  const operationHeader = read.string("svc.sink.operation.header");
  const allowlist = read.list("svc.sink.field.allowlist");
  const denylist = read.list("svc.sink.field.denylist");
  if (allowlist.length > 0 && denylist.length > 0) {
    throw new ConfigError(
      "svc.sink.field.allowlist and svc.sink.field.denylist are mutually exclusive: set only one",
    );
  }
  const ambiguousCreate = read.oneOf(
    "svc.sink.create.ambiguous.behavior",
    [
      "fail_ambiguous",
      "retry",
      "correlation_lookup",
    ] as const,
  );
  const correlationField = read.optionalString("svc.sink.correlation.field");
  if (ambiguousCreate === "correlation_lookup" && correlationField === null) {
    throw new ConfigError(
      "svc.sink.correlation.field is required when svc.sink.create.ambiguous.behavior=correlation_lookup",
    );
  }
  const maxInFlight = read.number("svc.sink.max.in.flight");
  const permits = read.number("svc.http.max.concurrent.requests");
  return {
    routing: routingSettings(read, props),
    operation: operationSettings(read, operationHeader),
    notFound: read.oneOf("svc.sink.not.found.behavior", ["fail", "ignore", "create"] as const),
    updateMethod: read.oneOf("svc.sink.update.method", ["PATCH", "PUT"] as const),
    sysIdKeyField: read.string("svc.sink.sys.id.key.field"),
    ambiguousCreate,
    correlationField,
    // The config rules refuse more than the instance permits; the minimum keeps a hand-built config honest too.
    maxInFlight: Math.max(1, Math.min(maxInFlight, permits)),
    batchMaxRecords: read.boolean("svc.sink.batch.enabled")
      ? read.number("svc.sink.batch.max.records")
      : null,
    onApiErrors: effectiveApiErrorBehavior(
      read.optionalString("behavior.on.api.errors"),
      read.optionalString("errors.tolerance"),
    ),
    fields: {
      renames: parseRenames(read.list("svc.sink.field.rename")),
      allowlist: allowlist.length > 0 ? new Set(allowlist) : null,
      denylist: denylist.length > 0 ? new Set(denylist) : null,
      reserved: new Set([...RESERVED_FIELDS, operationHeader]),
      nullBehavior: read.oneOf("svc.sink.null.behavior", ["omit", "clear", "reject"] as const),
      nestedBehavior: read.oneOf("svc.sink.nested.behavior", ["reject", "flatten", "stringify"] as const),
      flattenDelimiter: read.string("svc.sink.nested.flatten.delimiter"),
      unknownFieldBehavior: read.oneOf(
        "svc.sink.unknown.field.behavior",
        ["fail", "drop", "passthrough"] as const,
      ),
    },
    verify: {
      enabled: read.boolean("svc.sink.verify.writes"),
      rewritten: new Set(read.list("svc.sink.verify.rewritten.fields")),
      ignored: new Set(read.list("svc.sink.verify.ignore.fields")),
    },
    reporter: {
      bootstrapServers: read.list("svc.sink.reporter.bootstrap.servers"),
      successTopic: read.optionalString("svc.sink.reporter.success.topic"),
      errorTopic: read.optionalString("svc.sink.reporter.error.topic"),
    },
    resend: {
      maxAttempts: read.number("svc.retry.max.attempts"),
      initialBackoffMs: read.number("svc.retry.initial.backoff.ms"),
      maxBackoffMs: read.number("svc.retry.max.backoff.ms"),
    },
  };
}

function routingSettings(read: PropReader, props: TypedProps): RoutingSettings {
  const mode = read.oneOf("svc.sink.routing.mode", ["fixed", "topic_map", "header"] as const);
  switch (mode) {
    case "fixed": {
      const table = read.optionalString("svc.sink.table");
      if (table === null) {
        throw new ConfigError("svc.sink.table is required when svc.sink.routing.mode=fixed");
      }
      return { mode, table };
    }
    case "topic_map": {
      const tables = new Map<string, string>();
      for (const [key, value] of Object.entries(props)) {
        if (!key.startsWith(SINK_TOPIC_PREFIX) || !key.endsWith(".table")) continue;
        const topic = key.slice(SINK_TOPIC_PREFIX.length, -".table".length);
        if (topic !== "" && typeof value === "string" && value !== "") tables.set(topic, value);
      }
      return { mode, tables };
    }
    case "header": {
      const allowlist = read.list("svc.sink.table.allowlist");
      if (allowlist.length === 0) {
        throw new ConfigError("svc.sink.table.allowlist is required when svc.sink.routing.mode=header");
      }
      return { mode, header: read.string("svc.sink.table.header"), allowlist: new Set(allowlist) };
    }
  }
}

function operationSettings(read: PropReader, header: string): OperationSettings {
  const mode = read.oneOf("svc.sink.operation.mode", ["key_value", "header", "fixed"] as const);
  if (mode === "key_value") return { mode };
  if (mode === "header") return { mode, header };
  const fixed = read.optionalString("svc.sink.operation.fixed");
  if (fixed === null) {
    throw new ConfigError("svc.sink.operation.fixed is required when svc.sink.operation.mode=fixed");
  }
  const operations = ["create", "update", "upsert", "delete"] as const;
  const operation = operations.find((o) => o === fixed.toLowerCase());
  if (operation === undefined) {
    throw new ConfigError(
      `svc.sink.operation.fixed must be one of ${operations.join(", ")}, got "${fixed}"`,
    );
  }
  return { mode, operation };
}

/** `from:to` pairs; the config's validator has already checked their shape. */
function parseRenames(pairs: readonly string[]): ReadonlyMap<string, string> {
  const renames = new Map<string, string>();
  for (const pair of pairs) {
    const at = pair.indexOf(":");
    const from = pair.slice(0, at).trim();
    const to = pair.slice(at + 1).trim();
    if (at <= 0 || from === "" || to === "") {
      throw new ConfigError(`svc.sink.field.rename entries must look like from:to, got "${pair}"`);
    }
    if (renames.has(from)) throw new ConfigError(`svc.sink.field.rename renames "${from}" twice`);
    renames.set(from, to);
  }
  return renames;
}
