/**
 * Cross-field rules: checks that involve more than one property. Each error is attached to the property
 * the user has to change, and names every property involved. This file has the rules of every connector and
 * the helpers; source_rules.ts and sink_rules.ts have each type's own, connector_rules.ts applies them.
 */
import { addError, type Analysis } from "./analyze.ts";
import type { PropertyDef } from "./def.ts";
import { validateTransforms } from "../connect/transforms/validate.ts";
import { defaultConverterRegistry } from "../connect/converters/registry.ts";
import { splitList } from "./coerce.ts";
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

/** The effective converter settings of a connector: its own keys over the worker's. */
export interface ConverterContext {
  /** The worker's raw settings, including implied defaults (see worker.ts). */
  worker: Record<string, string>;
}

export function str(a: Analysis, key: string): string | null {
  const v = a.values[key];
  return typeof v === "string" ? v : v === null || v === undefined ? null : String(v);
}

export function list(a: Analysis, key: string): string[] {
  const v = a.values[key];
  return Array.isArray(v) ? v : typeof v === "string" ? splitList(v) : [];
}

export function isSet(a: Analysis, key: string): boolean {
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
  if (isSet(a, "svc.tls.truststore.path") && a.values["svc.tls.truststore.public.roots"] !== true) {
    addError(
      a,
      "svc.tls.truststore.path",
      "svc.tls.truststore.path cannot replace the public root certificates: the runtime only adds the trust " +
        "store's CAs to them, so a certificate from any public CA would still be accepted. Set " +
        "svc.tls.truststore.public.roots=true to accept that, or remove the trust store",
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
