/**
 * Cross-field rules: checks that involve more than one property. Each error is attached to the property
 * the user has to change, and names every property involved.
 */
import { addError, type Analysis } from "./analyze.ts";
import type { PropertyDef } from "./def.ts";
import { validateTransforms } from "../connect/transforms/validate.ts";
import { defaultConverterRegistry } from "../connect/converters/registry.ts";
import type { ConnectorType } from "./connector_class.ts";
import { aliasesOf } from "./catalog.ts";
import { splitList } from "./coerce.ts";
import { TABLE_PREFIX } from "./defs/table.ts";
import { sinkTopicTableKey } from "./defs/sink.ts";
import { impliedWorkerSettings, JSON_CONVERTER } from "./worker.ts";

/** Connect's schema-registry converters: each needs a schema on the value. */
export const REGISTRY_CONVERTERS = [
  "io.confluent.connect.avro.AvroConverter",
  "io.confluent.connect.json.JsonSchemaConverter",
  "io.confluent.connect.protobuf.ProtobufConverter",
] as const;

export const TYPED_FIELD_TYPES = [
  "string",
  "int8",
  "int16",
  "int32",
  "int64",
  "float32",
  "float64",
  "boolean",
  "bytes",
  "timestamp",
  "date",
  "time",
  "decimal",
] as const;

/** A typed-mode entry: `field:type`, where type may also be `decimal(scale)`. */
export const TYPED_FIELD = /^([a-z][a-z0-9_]*):([a-z0-9]+(?:\(\d+\))?)$/;
const DECIMAL_WITH_SCALE = /^decimal\((\d+)\)$/;

/** A cursor timestamp field: sys_updated_on or sys_created_on, or a database view's prefixed column. */
const CURSOR_TIMESTAMP = /^(?:[a-z][a-z0-9]*_)?sys_(?:updated|created)_on$/;
/** Placeholders for paging offsets that other connectors substitute into their queries. */
const OFFSET_PLACEHOLDER = /\$\{[^}]*\}|\{\{[^}]*\}\}|\{offset\}|sysparm_offset/i;

/** The effective converter settings of a connector: its own keys over the worker's. */
export interface ConverterContext {
  /** The worker's raw settings, including implied defaults (see worker.ts). */
  worker: Record<string, string>;
}

function str(a: Analysis, key: string): string | null {
  const v = a.values[key];
  return typeof v === "string" ? v : v === null || v === undefined ? null : String(v);
}

function list(a: Analysis, key: string): string[] {
  const v = a.values[key];
  return Array.isArray(v) ? v : typeof v === "string" ? splitList(v) : [];
}

function isSet(a: Analysis, key: string): boolean {
  const v = str(a, key);
  return v !== null && v !== "";
}

export function applyCommonRules(a: Analysis): void {
  const authType = str(a, "svc.auth.type");
  const needsUserPassword = authType === "basic" ||
    (authType === "oauth2" && str(a, "svc.oauth.grant.type") === "password");
  const why = authType === "basic" ? "svc.auth.type=basic" : "svc.oauth.grant.type=password";
  if (needsUserPassword) {
    for (const key of ["svc.auth.username", "svc.auth.password"]) {
      if (!isSet(a, key)) addError(a, key, `${key} is required when ${why}`);
    }
  }
  if (authType === "oauth2") {
    for (const key of ["svc.oauth.client.id", "svc.oauth.client.secret"]) {
      if (!isSet(a, key)) addError(a, key, `${key} is required when svc.auth.type=oauth2`);
    }
  }
  if (isSet(a, "svc.tls.keystore.path") && !isSet(a, "svc.tls.keystore.password")) {
    addError(
      a,
      "svc.tls.keystore.password",
      "svc.tls.keystore.password is required with svc.tls.keystore.path: it unlocks the private key",
    );
  }
  if (isSet(a, "svc.http.proxy.username") !== isSet(a, "svc.http.proxy.password")) {
    const missing = isSet(a, "svc.http.proxy.username")
      ? "svc.http.proxy.password"
      : "svc.http.proxy.username";
    addError(a, missing, "svc.http.proxy.username and svc.http.proxy.password must be set together");
  }
  if (!isSet(a, "svc.http.proxy.url")) {
    for (const key of ["svc.http.proxy.username", "svc.http.proxy.password"]) {
      if (isSet(a, key)) addError(a, key, `${key} needs svc.http.proxy.url`);
    }
  }
  const initial = a.values["svc.retry.initial.backoff.ms"];
  const max = a.values["svc.retry.max.backoff.ms"];
  if (typeof initial === "number" && typeof max === "number" && initial > max) {
    addError(
      a,
      "svc.retry.initial.backoff.ms",
      `svc.retry.initial.backoff.ms (${initial}) must not exceed svc.retry.max.backoff.ms (${max})`,
    );
  }
  applyTransformRules(a);
  applyConverterRules(a);
}

/** A converter class must be one this build has (the worker's are checked the same way at start). */
function applyConverterRules(a: Analysis): void {
  for (
    const [key, kind] of [["key.converter", "converter"], ["value.converter", "converter"], [
      "header.converter",
      "header_converter",
    ]] as const
  ) {
    const cls = str(a, key);
    if (!cls) continue;
    if (defaultConverterRegistry.resolve(cls) === null) {
      addError(
        a,
        key,
        `Invalid value ${cls} for configuration ${key}: Class ${cls} could not be found. Supported classes: ${
          defaultConverterRegistry.classNames(kind).join(", ")
        }`,
      );
    }
  }
}

/**
 * Transforms and predicates are validated by their own registry (src/connect/transforms), which knows every
 * class's keys; its definitions join the analysis so ConfigInfos shows them in "Transforms: <alias>" groups.
 */
function applyTransformRules(a: Analysis): void {
  const { errors, defs } = validateTransforms(a.raw);
  for (const def of defs) {
    if (a.defs.some((d) => d.name === def.name)) continue;
    a.defs.push({ ...def, type: def.type as PropertyDef["type"] });
  }
  for (const [key, messages] of errors) for (const m of messages) addError(a, key, m);
}

/** The effective value converter class and JsonConverter schemas.enable of a connector. */
export function effectiveValueConverter(
  a: Analysis,
  ctx: ConverterContext,
): { cls: string; schemasEnable: boolean } {
  const own = str(a, "value.converter");
  // The worker's own defaults apply when its section does not set them (see impliedWorkerSettings).
  const worker = { ...impliedWorkerSettings(ctx.worker), ...ctx.worker };
  const cls = own && own !== "" ? own : worker["value.converter"] ?? JSON_CONVERTER;
  // As in Kafka Connect, prefixed settings come from the level that names the class: a connector's
  // value.converter.schemas.enable is ignored unless the connector also sets value.converter.
  const flag = own && own !== ""
    ? str(a, "value.converter.schemas.enable")
    : worker["value.converter.schemas.enable"] ?? null;
  // JsonConverter's own default is schemas.enable=true.
  return { cls, schemasEnable: (flag ?? "true").trim().toLowerCase() !== "false" };
}

export function applySourceRules(a: Analysis, ctx: ConverterContext): void {
  const rawAliases = list(a, "svc.tables");
  if (a.values["svc.tables"] !== null && rawAliases.length === 0) {
    addError(a, "svc.tables", "svc.tables must list at least one alias");
  }
  const seen = new Set<string>();
  for (const alias of rawAliases) {
    if (seen.has(alias)) addError(a, "svc.tables", `alias '${alias}' is listed more than once in svc.tables`);
    seen.add(alias);
  }

  const aliases = aliasesOf(a.raw);
  const identities = new Map<string, string>();
  for (const alias of aliases) {
    const k = (suffix: string) => `${TABLE_PREFIX}${alias}.${suffix}`;
    const tsField = str(a, k("timestamp.field")) ?? "";
    const idField = str(a, k("sys.id.field")) ?? "";
    if (tsField !== "" && !CURSOR_TIMESTAMP.test(tsField)) {
      addError(
        a,
        k("timestamp.field"),
        `Invalid value ${tsField} for configuration ${
          k("timestamp.field")
        }: the cursor timestamp must be sys_updated_on or sys_created_on, or a database view's prefixed column such as inc_sys_updated_on`,
      );
    }
    if (a.values[k("capture.deletes")] === true && idField !== "" && idField !== "sys_id") {
      addError(
        a,
        k("capture.deletes"),
        `${k("capture.deletes")}=true needs a table keyed by sys_id: the instance audits deletions of tables, ` +
          `not of database views (${k("sys.id.field")} is ${idField})`,
      );
    }
    const fields = list(a, k("fields"));
    if (fields.length > 0) {
      for (const required of [idField, tsField]) {
        if (required !== "" && !fields.includes(required)) {
          addError(
            a,
            k("fields"),
            `${k("fields")} must include the sys id field and the timestamp field: '${required}' is missing`,
          );
        }
      }
    }
    const query = str(a, k("query")) ?? "";
    if (/ORDERBY/i.test(query)) {
      addError(
        a,
        k("query"),
        `${
          k("query")
        } must be a plain filter without ORDERBY: the connector orders by its cursor fields itself`,
      );
    }
    if (OFFSET_PLACEHOLDER.test(query)) {
      addError(
        a,
        k("query"),
        `${k("query")} must not contain an offset placeholder: paging is by keyset cursor`,
      );
    }
    const table = str(a, k("name"));
    if (table) {
      const identity = `${table}\u0000${query}\u0000${str(a, k("query.domain"))}\u0000${
        str(a, k("timestamp.field"))
      }`;
      const other = identities.get(identity);
      if (other) {
        addError(
          a,
          k("name"),
          `aliases '${other}' and '${alias}' poll table ${table} with the same query; their offsets would collide`,
        );
      } else identities.set(identity, alias);
    }
  }

  // Keys of aliases that svc.tables does not list.
  const known = new Set(aliases);
  for (const key of Object.keys(a.raw)) {
    if (!key.startsWith(TABLE_PREFIX)) continue;
    const alias = key.slice(TABLE_PREFIX.length).split(".")[0];
    if (!known.has(alias)) {
      a.errors.delete(key);
      addError(a, key, `Unknown property ${key}: alias '${alias}' is not listed in svc.tables`);
    }
  }

  const mode = str(a, "svc.source.schema.mode");
  const typed = list(a, "svc.source.typed.fields");
  const typedNames = new Set<string>();
  for (const entry of typed) {
    const m = TYPED_FIELD.exec(entry);
    if (!m) {
      addError(
        a,
        "svc.source.typed.fields",
        `Invalid entry '${entry}' in svc.source.typed.fields: expected field:type`,
      );
      continue;
    }
    const [, field, type] = m;
    const scale = DECIMAL_WITH_SCALE.exec(type);
    if (!scale && !(TYPED_FIELD_TYPES as readonly string[]).includes(type)) {
      addError(
        a,
        "svc.source.typed.fields",
        `Invalid type '${type}' for field ${field} in svc.source.typed.fields: allowed types are ${
          TYPED_FIELD_TYPES.join(", ")
        }, decimal(scale)`,
      );
    }
    if (typedNames.has(field)) {
      addError(
        a,
        "svc.source.typed.fields",
        `field ${field} is listed more than once in svc.source.typed.fields`,
      );
    }
    typedNames.add(field);
  }
  if (mode === "typed" && typed.length === 0) {
    addError(
      a,
      "svc.source.typed.fields",
      "svc.source.typed.fields is required when svc.source.schema.mode=typed",
    );
  }

  if (mode === "schemaless") {
    const { cls, schemasEnable } = effectiveValueConverter(a, ctx);
    if (cls === JSON_CONVERTER && schemasEnable) {
      addError(
        a,
        "svc.source.schema.mode",
        "schemaless values have no schema, but the JsonConverter has schemas.enable=true: set value.converter.schemas.enable=false or use svc.source.schema.mode=strings or typed",
      );
    } else if ((REGISTRY_CONVERTERS as readonly string[]).includes(cls)) {
      addError(
        a,
        "svc.source.schema.mode",
        `schemaless values have no schema, but ${cls} needs one: use svc.source.schema.mode=strings or typed`,
      );
    }
  }

  if (str(a, "exactly.once.support") === "required") {
    addError(
      a,
      "exactly.once.support",
      "Exactly-once delivery is unsupported by TableSourceConnector (it delivers at least once, with overlap and dedup); use exactly.once.support=requested or remove it",
    );
  }

  const creationKeys = Object.keys(a.raw).filter((k) => k.startsWith("topic.creation."));
  if (creationKeys.length > 0) {
    for (const key of ["topic.creation.default.replication.factor", "topic.creation.default.partitions"]) {
      const v = a.raw[key];
      if (v === undefined) {
        addError(
          a,
          key,
          `Missing required configuration "${key}" which has no default value (needed once any topic.creation.* key is set).`,
        );
      } else if (!/^-?\d+$/.test(v.trim()) || (Number(v) < 1 && Number(v) !== -1)) {
        addError(
          a,
          key,
          `Invalid value ${v} for configuration ${key}: must be -1 (broker default) or at least 1`,
        );
      }
    }
  }
}

export function applySinkRules(a: Analysis): void {
  const topics = list(a, "topics");
  const topicsRegex = str(a, "topics.regex") ?? "";
  if (topics.length > 0 && topicsRegex !== "") {
    addError(a, "topics", "topics and topics.regex are mutually exclusive: set only one");
  } else if (topics.length === 0 && topicsRegex === "") {
    addError(a, "topics", "Must configure one of topics or topics.regex");
  }

  const routing = str(a, "svc.sink.routing.mode");
  if (routing === "fixed" && !isSet(a, "svc.sink.table")) {
    addError(a, "svc.sink.table", "svc.sink.table is required when svc.sink.routing.mode=fixed");
  }
  if (routing === "topic_map") {
    if (topicsRegex !== "") {
      addError(
        a,
        "svc.sink.routing.mode",
        "topic_map routing needs an explicit topics list (one svc.sink.topic.<topic>.table per topic), not topics.regex",
      );
    }
  }
  if (routing === "header" && list(a, "svc.sink.table.allowlist").length === 0) {
    addError(
      a,
      "svc.sink.table.allowlist",
      "svc.sink.table.allowlist is required when svc.sink.routing.mode=header: list the tables records may be written to",
    );
  }
  if (routing !== "topic_map") {
    for (const topic of topics) {
      const key = sinkTopicTableKey(topic);
      if (a.raw[key] !== undefined) {
        addError(a, key, `${key} is only used when svc.sink.routing.mode=topic_map`);
      }
    }
  }

  const operation = str(a, "svc.sink.operation.mode");
  if (operation === "fixed" && !isSet(a, "svc.sink.operation.fixed")) {
    addError(
      a,
      "svc.sink.operation.fixed",
      "svc.sink.operation.fixed is required when svc.sink.operation.mode=fixed",
    );
  }
  if (list(a, "svc.sink.field.allowlist").length > 0 && list(a, "svc.sink.field.denylist").length > 0) {
    addError(
      a,
      "svc.sink.field.allowlist",
      "svc.sink.field.allowlist and svc.sink.field.denylist are mutually exclusive: set only one",
    );
  }
  if (
    str(a, "svc.sink.create.ambiguous.behavior") === "correlation_lookup" &&
    !isSet(a, "svc.sink.correlation.field")
  ) {
    addError(
      a,
      "svc.sink.correlation.field",
      "svc.sink.correlation.field is required when svc.sink.create.ambiguous.behavior=correlation_lookup",
    );
  }
  const inFlight = a.values["svc.sink.max.in.flight"];
  const permits = a.values["svc.http.max.concurrent.requests"];
  if (typeof inFlight === "number" && typeof permits === "number" && inFlight > permits) {
    addError(
      a,
      "svc.sink.max.in.flight",
      `svc.sink.max.in.flight (${inFlight}) must not exceed svc.http.max.concurrent.requests (${permits})`,
    );
  }
  const reporterTopics = ["svc.sink.reporter.success.topic", "svc.sink.reporter.error.topic"].filter((k) =>
    isSet(a, k)
  );
  if (reporterTopics.length > 0 && list(a, "svc.sink.reporter.bootstrap.servers").length === 0) {
    addError(
      a,
      "svc.sink.reporter.bootstrap.servers",
      `svc.sink.reporter.bootstrap.servers is required when ${reporterTopics.join(" and ")} ${
        reporterTopics.length > 1 ? "are" : "is"
      } set`,
    );
  }
  const dlq = str(a, "errors.deadletterqueue.topic.name") ?? "";
  if (dlq !== "" && topics.includes(dlq)) {
    addError(
      a,
      "errors.deadletterqueue.topic.name",
      `The DLQ topic '${dlq}' may not be included in the list of topics ('topics=${
        topics.join(",")
      }') consumed by the connector (errors.deadletterqueue.topic.name)`,
    );
  }
}

/** Applies every cross-field rule for a connector of the given type. */
export function applyConnectorRules(a: Analysis, type: ConnectorType, ctx: ConverterContext): void {
  applyCommonRules(a);
  if (type === "source") applySourceRules(a, ctx);
  else applySinkRules(a);
}
