/**
 * The schema registry client's settings, read from converter settings with Confluent's property names
 * (`value.converter.schema.registry.url=...` reaches the converter as `schema.registry.url`). Each setting, its
 * default and meaning: docs/schema-registry.md, "Configuration".
 *
 * Every credential is registered with the redaction layer as soon as it is read.
 */
import { ConfigException } from "../../errors.ts";
import { intSetting } from "../../converters/config_values.ts";
import type { ConverterConfig } from "../../converters/converter.ts";
import { registerSecret } from "../../../observability/redact.ts";

export const SCHEMA_REGISTRY_URL_CONFIG = "schema.registry.url";

export type RegistryClientSettings = ReturnType<typeof parseRegistryClientSettings>;
export type StoreSettings = NonNullable<RegistryClientSettings["truststore"]>;

function text(configs: ConverterConfig, name: string): string | null {
  const value = configs[name];
  return value === undefined || value.trim() === "" ? null : value.trim();
}

function basicHeader(userInfo: string): string {
  return `Basic ${btoa(String.fromCodePoint(...new TextEncoder().encode(userInfo)))}`;
}

/** Splits the URL list, taking user info out of each URL (it becomes the basic credentials for source URL). */
function parseUrls(raw: string): { urls: string[]; userInfo: string | null } {
  let userInfo: string | null = null;
  const urls = raw.split(",").map((s) => s.trim()).filter((s) => s !== "").map((entry) => {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw ConfigException.invalidValue(SCHEMA_REGISTRY_URL_CONFIG, redactUrl(entry), "not a URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw ConfigException.invalidValue(
        SCHEMA_REGISTRY_URL_CONFIG,
        redactUrl(entry),
        "only http and https URLs",
      );
    }
    if (url.username !== "") {
      userInfo = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      registerSecret(decodeURIComponent(url.password));
      registerSecret(userInfo);
      url.username = "";
      url.password = "";
    }
    return url.toString().replace(/\/+$/, "");
  });
  return { urls, userInfo };
}

/** A URL for messages: user info replaced. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/[^/@]*@/, "//[hidden]@");
}

function authorization(configs: ConverterConfig, userInfoFromUrl: string | null): string | null {
  const bearerSource = text(configs, "bearer.auth.credentials.source")?.toUpperCase() ?? null;
  if (bearerSource !== null) {
    if (bearerSource !== "STATIC_TOKEN") {
      throw ConfigException.invalidValue(
        "bearer.auth.credentials.source",
        bearerSource,
        "only STATIC_TOKEN is supported (set bearer.auth.token)",
      );
    }
    const token = text(configs, "bearer.auth.token");
    if (token === null) {
      throw new ConfigException(
        "bearer.auth.token must be set when bearer.auth.credentials.source is STATIC_TOKEN",
      );
    }
    registerSecret(token);
    return `Bearer ${token}`;
  }
  const source = text(configs, "basic.auth.credentials.source")?.toUpperCase() ?? "URL";
  switch (source) {
    case "URL":
      return userInfoFromUrl === null ? null : basicHeader(userInfoFromUrl);
    case "USER_INFO": {
      const info = text(configs, "basic.auth.user.info") ??
        text(configs, "schema.registry.basic.auth.user.info");
      if (info === null) {
        throw new ConfigException(
          "basic.auth.user.info must be set when basic.auth.credentials.source is USER_INFO",
        );
      }
      registerSecret(info);
      registerSecret(info.slice(info.indexOf(":") + 1));
      return basicHeader(info);
    }
    default:
      throw ConfigException.invalidValue(
        "basic.auth.credentials.source",
        source,
        source === "SASL_INHERIT"
          ? "SASL_INHERIT needs the Kafka client's SASL settings, which converters do not see here; use USER_INFO"
          : "String must be one of: URL, USER_INFO, SASL_INHERIT",
      );
  }
}

/** A store's path, password and type (`JKS`, `PKCS12` or `PEM`, upper-cased; JKS by default as in Java). */
function store(configs: ConverterConfig, role: "truststore" | "keystore") {
  const prefix = `schema.registry.ssl.${role}`;
  const location = text(configs, `${prefix}.location`);
  if (location === null) return null;
  const password = text(configs, `${prefix}.password`);
  registerSecret(password);
  registerSecret(text(configs, "schema.registry.ssl.key.password"));
  return { path: location, password, type: (text(configs, `${prefix}.type`) ?? "JKS").toUpperCase() };
}

function extraHeaders(configs: ConverterConfig): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(configs)) {
    if (key.startsWith("request.header.")) headers[key.slice("request.header.".length)] = value;
  }
  const cluster = text(configs, "bearer.auth.logical.cluster");
  if (cluster !== null) headers["target-sr-cluster"] = cluster;
  const pool = text(configs, "bearer.auth.identity.pool.id");
  if (pool !== null) headers["Confluent-Identity-Pool-Id"] = pool;
  return headers;
}

/** Reads the client settings; throws `ConfigException` naming the property for a missing or invalid value. */
export function parseRegistryClientSettings(configs: ConverterConfig) {
  const raw = text(configs, SCHEMA_REGISTRY_URL_CONFIG);
  if (raw === null) {
    throw new ConfigException(
      `Missing required configuration "${SCHEMA_REGISTRY_URL_CONFIG}" which has no default value.`,
    );
  }
  const { urls, userInfo } = parseUrls(raw);
  if (urls.length === 0) {
    throw ConfigException.invalidValue(SCHEMA_REGISTRY_URL_CONFIG, raw, "at least one URL is required");
  }
  return Object.freeze({
    /** Without user info and trailing slash. */
    urls: Object.freeze(urls),
    /** The `Authorization` header value, or null. */
    authorization: authorization(configs, userInfo),
    /** Sent with every request. */
    headers: Object.freeze(extraHeaders(configs)),
    truststore: store(configs, "truststore"),
    keystore: store(configs, "keystore"),
    maxRetries: intSetting(configs, "max.retries", 3, 0),
    retryWaitMs: intSetting(configs, "retries.wait.ms", 1000, 0),
    retryMaxWaitMs: intSetting(configs, "retries.max.wait.ms", 20000, 0),
    readTimeoutMs: intSetting(configs, "http.read.timeout.ms", 30000, 1),
  });
}
