/**
 * Maps Kafka Connect / Java client style properties to our client options.
 *
 * Input is a flat string map: the worker config, or a connector's `producer.override.*` / `consumer.override.*`
 * keys with the prefix stripped (`stripPrefix`). To apply overrides, merge the raw maps first and map once:
 * `kafkaOptionsFromProperties({ ...workerProps, ...stripPrefix(connectorProps, "producer.override.") })`.
 *
 * Keys this module does not know are ignored (a worker config holds many non-Kafka keys). Known keys with a value
 * this client cannot honour throw `KafkaConfigError` naming the key; errors about secret-bearing keys never quote
 * the value. SASL passwords are registered with the redaction layer as soon as they are parsed.
 *
 * TLS: PEM files or inline PEM only (see tls_properties.ts for the accepted keys). JKS/PKCS12 stores are rejected with
 * a message that says how to convert them.
 */
import { registerSecret } from "../observability/redact.ts";
import { KafkaConfigError } from "./errors.ts";
import { tlsOptionsFromProperties } from "./tls_properties.ts";
import type {
  Acks,
  CompressionType,
  ConsumerOptions,
  KafkaConnectionOptions,
  ProducerOptions,
  SaslOptions,
} from "./types.ts";

export interface KafkaOptions {
  connection: KafkaConnectionOptions;
  /** Only the keys present in the properties; defaults are applied by `createKafka().producer()`. */
  producer: Partial<ProducerOptions>;
  /** Only the keys present in the properties; defaults are applied by `createKafka().consumer()`. */
  consumer: Partial<ConsumerOptions>;
}

const DEFAULT_CLIENT_ID = "tablesync";
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;

export type SecurityProtocol = "PLAINTEXT" | "SSL" | "SASL_PLAINTEXT" | "SASL_SSL";
const SECURITY_PROTOCOLS: readonly SecurityProtocol[] = ["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"];

/** Returns the keys that start with `prefix`, with the prefix removed (e.g. "producer.override."). */
export function stripPrefix(props: Record<string, string>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(props)) {
    if (key.startsWith(prefix) && key.length > prefix.length) out[key.slice(prefix.length)] = value;
  }
  return out;
}

/** Maps properties to options; throws KafkaConfigError for missing or unsupported values. */
export async function kafkaOptionsFromProperties(props: Record<string, string>): Promise<KafkaOptions> {
  const get = (key: string): string | undefined => {
    const v = props[key];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };

  const brokers = parseBootstrapServers(get("bootstrap.servers"));
  const protocol =
    parseEnum("security.protocol", get("security.protocol")?.toUpperCase(), SECURITY_PROTOCOLS) ??
      "PLAINTEXT";
  const usesTls = protocol === "SSL" || protocol === "SASL_SSL";
  const usesSasl = protocol === "SASL_PLAINTEXT" || protocol === "SASL_SSL";

  const connection: KafkaConnectionOptions = {
    brokers,
    clientId: get("client.id") ?? DEFAULT_CLIENT_ID,
    requestTimeoutMs: parseInteger(props, "request.timeout.ms", 1) ?? DEFAULT_REQUEST_TIMEOUT_MS,
    connectionTimeoutMs: parseInteger(props, "socket.connection.setup.timeout.ms", 1) ??
      DEFAULT_CONNECTION_TIMEOUT_MS,
  };
  if (usesSasl) connection.sasl = parseSasl(get("sasl.mechanism"), props["sasl.jaas.config"]);
  if (usesTls) connection.tls = await tlsOptionsFromProperties(props);

  const producer: Partial<ProducerOptions> = {};
  const acks = get("acks");
  if (acks !== undefined) producer.acks = parseAcks(acks);
  const compression = get("compression.type");
  if (compression !== undefined) producer.compression = parseCompression(compression);
  setIfPresent(producer, "lingerMs", parseInteger(props, "linger.ms", 0));
  setIfPresent(producer, "batchSizeBytes", parseInteger(props, "batch.size", 0));
  setIfPresent(producer, "maxRequestBytes", parseInteger(props, "max.request.size", 1));
  // Java's default: retries unbounded in number, bounded in time by delivery.timeout.ms (delivery_retry.ts).
  setIfPresent(producer, "retries", parseInteger(props, "retries", 0));
  setIfPresent(producer, "deliveryTimeoutMs", parseInteger(props, "delivery.timeout.ms", 1));
  setIfPresent(producer, "retryBackoffMs", parseInteger(props, "retry.backoff.ms", 0));
  setIfPresent(producer, "retryBackoffMaxMs", parseInteger(props, "retry.backoff.max.ms", 1));
  setIfPresent(producer, "transactionTimeoutMs", parseInteger(props, "transaction.timeout.ms", 1));
  const idempotence = parseBoolean(props, "enable.idempotence");
  if (idempotence === true) {
    // kafkajs's idempotent producer needs maxInFlightRequests=1 and a controller in the metadata; our producer
    // sends concurrent requests, so the guarantee would not hold. Java Connect works without it (at-least-once).
    throw new KafkaConfigError("enable.idempotence", "true is not supported by this client; set it to false");
  }
  if (get("transactional.id") !== undefined) {
    throw new KafkaConfigError("transactional.id", "transactions are not supported by this client");
  }

  const consumer: Partial<ConsumerOptions> = {};
  const groupId = get("group.id");
  if (groupId !== undefined) consumer.groupId = groupId;
  setIfPresent(consumer, "sessionTimeoutMs", parseInteger(props, "session.timeout.ms", 1));
  setIfPresent(consumer, "heartbeatIntervalMs", parseInteger(props, "heartbeat.interval.ms", 1));
  setIfPresent(consumer, "rebalanceTimeoutMs", parseInteger(props, "max.poll.interval.ms", 1));
  setIfPresent(consumer, "fetchMaxWaitMs", parseInteger(props, "fetch.max.wait.ms", 0));
  setIfPresent(consumer, "maxPartitionFetchBytes", parseInteger(props, "max.partition.fetch.bytes", 1));
  setIfPresent(consumer, "fetchMaxBytes", parseInteger(props, "fetch.max.bytes", 1));
  const reset = get("auto.offset.reset");
  if (reset !== undefined) {
    const value = parseEnum(
      "auto.offset.reset",
      reset.toLowerCase(),
      ["earliest", "latest", "none"] as const,
    );
    if (value === "none") {
      throw new KafkaConfigError("auto.offset.reset", `"none" is not supported; use "earliest" or "latest"`);
    }
    consumer.autoOffsetReset = value;
  }
  const isolation = get("isolation.level");
  if (isolation !== undefined) {
    consumer.readCommitted = parseEnum(
      "isolation.level",
      isolation.toLowerCase(),
      ["read_committed", "read_uncommitted"] as const,
    ) === "read_committed";
  }

  return { connection, producer, consumer };
}

function parseBootstrapServers(value: string | undefined): string[] {
  if (value === undefined) throw new KafkaConfigError("bootstrap.servers", "is required");
  const brokers = value.split(",").map((s) => s.trim()).filter((s) => s !== "")
    // Java accepts only host:port, but a listener-style "PLAINTEXT://host:port" is a common paste; drop the scheme.
    .map((s) => s.replace(/^[A-Za-z_]+:\/\//, ""));
  for (const broker of brokers) {
    if (!/^(\[[0-9a-fA-F:.]+\]|[^\s:/]+):\d{1,5}$/.test(broker)) {
      throw new KafkaConfigError("bootstrap.servers", `"${broker}" is not host:port`);
    }
  }
  if (brokers.length === 0) throw new KafkaConfigError("bootstrap.servers", "is empty");
  return brokers;
}

const SASL_MECHANISMS = {
  "PLAIN": { mechanism: "plain", loginModule: "org.apache.kafka.common.security.plain.PlainLoginModule" },
  "SCRAM-SHA-256": {
    mechanism: "scram-sha-256",
    loginModule: "org.apache.kafka.common.security.scram.ScramLoginModule",
  },
  "SCRAM-SHA-512": {
    mechanism: "scram-sha-512",
    loginModule: "org.apache.kafka.common.security.scram.ScramLoginModule",
  },
} as const;

function parseSasl(mechanismValue: string | undefined, jaasConfig: string | undefined): SaslOptions {
  // Java's default mechanism is GSSAPI (Kerberos), which this client cannot do: say so rather than guess PLAIN.
  const name = (mechanismValue ?? "GSSAPI").toUpperCase();
  if (!(name in SASL_MECHANISMS)) {
    throw new KafkaConfigError(
      "sasl.mechanism",
      `"${name}" is not supported; use one of ${Object.keys(SASL_MECHANISMS).join(", ")}`,
    );
  }
  const { mechanism, loginModule } = SASL_MECHANISMS[name as keyof typeof SASL_MECHANISMS];
  if (jaasConfig === undefined || jaasConfig.trim() === "") {
    throw new KafkaConfigError("sasl.jaas.config", `is required for SASL mechanism ${name}`);
  }
  const jaas = parseJaasConfig(jaasConfig);
  // Register before any validation error can be raised, so that nothing printed later can show it. Log lines are
  // redacted after JSON serialisation, where quotes and backslashes in the password appear escaped: register
  // that form too.
  registerSecret(jaas.options.password);
  registerSecret(jaas.options.password && JSON.stringify(jaas.options.password).slice(1, -1));
  if (jaas.loginModule !== loginModule) {
    throw new KafkaConfigError(
      "sasl.jaas.config",
      `login module "${jaas.loginModule}" does not match sasl.mechanism ${name} (expected ${loginModule})`,
    );
  }
  const { username, password } = jaas.options;
  if (!username) throw new KafkaConfigError("sasl.jaas.config", "has no username option");
  if (!password) throw new KafkaConfigError("sasl.jaas.config", "has no password option");
  return { mechanism, username, password };
}

interface JaasConfig {
  loginModule: string;
  controlFlag: string;
  options: Record<string, string>;
}

/**
 * Parses one JAAS login module entry: `<LoginModule> <flag> key="value" key2=value2;`.
 * Quoted values may contain spaces, `;` and backslash escapes. Error messages never quote option values.
 */
function parseJaasConfig(text: string): JaasConfig {
  const fail = (what: string): never => {
    throw new KafkaConfigError("sasl.jaas.config", `cannot parse: ${what}`);
  };
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const word = (): string => {
    const start = i;
    while (i < text.length && /[A-Za-z0-9_.$-]/.test(text[i])) i++;
    return text.slice(start, i);
  };
  skipSpace();
  const loginModule = word();
  if (!loginModule) fail("expected a login module class name");
  skipSpace();
  const controlFlag = word().toLowerCase();
  if (!["required", "requisite", "sufficient", "optional"].includes(controlFlag)) {
    fail("expected a control flag (required, requisite, sufficient, optional) after the login module");
  }
  const options: Record<string, string> = {};
  for (;;) {
    skipSpace();
    if (i >= text.length) fail("missing ';' at the end");
    if (text[i] === ";") {
      i++;
      break;
    }
    const key = word();
    if (!key) fail(`unexpected character at position ${i}`);
    skipSpace();
    if (text[i] !== "=") fail(`expected '=' after option ${key}`);
    i++;
    skipSpace();
    let value = "";
    if (text[i] === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === "\\" && i + 1 < text.length) i++;
        value += text[i++];
      }
      if (i >= text.length) fail(`unterminated quoted value of option ${key}`);
      i++;
    } else {
      const start = i;
      while (i < text.length && !/[\s;]/.test(text[i])) i++;
      value = text.slice(start, i);
    }
    options[key] = value;
  }
  skipSpace();
  if (i < text.length) fail("only one login module entry is supported");
  return { loginModule, controlFlag, options };
}

function parseAcks(value: string): Acks {
  switch (value.toLowerCase()) {
    case "all":
    case "-1":
      return -1;
    case "0":
      return 0;
    case "1":
      return 1;
    default:
      throw new KafkaConfigError("acks", `"${value}" is not one of all, -1, 0, 1`);
  }
}

function parseCompression(value: string): CompressionType {
  const v = value.toLowerCase();
  if (v === "none" || v === "gzip") return v;
  if (v === "snappy" || v === "lz4" || v === "zstd") {
    throw new KafkaConfigError(
      "compression.type",
      `"${v}" is not supported by this client (kafkajs bundles only gzip); use none or gzip`,
    );
  }
  throw new KafkaConfigError("compression.type", `"${value}" is not one of none, gzip, snappy, lz4, zstd`);
}

function parseInteger(props: Record<string, string>, key: string, min: number): number | undefined {
  const raw = props[key]?.trim();
  if (raw === undefined || raw === "") return undefined;
  if (!/^-?\d+$/.test(raw)) throw new KafkaConfigError(key, `"${raw}" is not an integer`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) {
    throw new KafkaConfigError(key, `${raw} is out of range (minimum ${min})`);
  }
  return n;
}

function parseBoolean(props: Record<string, string>, key: string): boolean | undefined {
  const raw = props[key]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return undefined;
  if (raw === "true") return true;
  if (raw === "false") return false;
  throw new KafkaConfigError(key, `"${props[key]}" is not true or false`);
}

function parseEnum<T extends string>(
  key: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new KafkaConfigError(key, `"${value}" is not one of ${allowed.join(", ")}`);
  }
  return value as T;
}

function setIfPresent<T, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}
