import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { startKafkaMock } from "../support/kafka_mock.ts";
import { logger, setLogSink } from "../../src/observability/log.ts";
import { DEFAULT_TRANSACTION_TIMEOUT_MS } from "../../src/config/exactly_once_rules.ts";
import {
  createKafka,
  DEFAULT_PRODUCER_OPTIONS,
  KafkaConfigError,
  kafkaOptionsFromProperties,
  stripPrefix,
} from "../../src/kafka/mod.ts";

Deno.test("options: Java client properties map to connection, producer and consumer options", async () => {
  const options = await kafkaOptionsFromProperties({
    "bootstrap.servers": " PLAINTEXT://k1:9092, k2:9093 ",
    "client.id": "tablesync-1",
    "request.timeout.ms": "15000",
    "acks": "all",
    "compression.type": "gzip",
    "linger.ms": "5",
    "batch.size": "65536",
    "max.request.size": "2097152",
    "retries": "3",
    "transaction.timeout.ms": "300000",
    "group.id": "connect-x",
    "session.timeout.ms": "10000",
    "auto.offset.reset": "latest",
    "isolation.level": "read_committed",
    "rest.port": "8083", // not a client key: ignored
  });
  assertEquals(options.connection, {
    brokers: ["k1:9092", "k2:9093"],
    clientId: "tablesync-1",
    requestTimeoutMs: 15_000,
    connectionTimeoutMs: 10_000,
  });
  assertEquals(options.producer, {
    acks: -1,
    compression: "gzip",
    lingerMs: 5,
    batchSizeBytes: 65_536,
    maxRequestBytes: 2_097_152,
    retries: 3,
    transactionTimeoutMs: 300_000,
  });
  assertEquals(options.consumer, {
    groupId: "connect-x",
    sessionTimeoutMs: 10_000,
    autoOffsetReset: "latest",
    readCommitted: true,
  });
  assertEquals(
    stripPrefix(
      { "producer.override.acks": "1", "acks": "all", "producer.override.": "x" },
      "producer.override.",
    ),
    {
      acks: "1",
    },
  );
});

Deno.test("options: unsupported values fail naming the property", async () => {
  const base = { "bootstrap.servers": "k:9092" };
  const cases: Array<[Record<string, string>, string]> = [
    [{}, "bootstrap.servers"],
    [{ "bootstrap.servers": "no-port" }, "bootstrap.servers"],
    [{ ...base, "security.protocol": "SSL_PLAIN" }, "security.protocol"],
    [{ ...base, "security.protocol": "SASL_PLAINTEXT" }, "sasl.mechanism"], // Java's default GSSAPI
    [{ ...base, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER" }, "sasl.mechanism"],
    [{ ...base, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN" }, "sasl.jaas.config"],
    [{ ...base, "compression.type": "zstd" }, "compression.type"],
    [{ ...base, "acks": "2" }, "acks"],
    [{ ...base, "linger.ms": "soon" }, "linger.ms"],
    [{ ...base, "auto.offset.reset": "none" }, "auto.offset.reset"],
    [{ ...base, "enable.idempotence": "true" }, "enable.idempotence"],
    [
      { ...base, "security.protocol": "SSL", "ssl.truststore.location": "/nonexistent/ca.pem" },
      "ssl.truststore.location",
    ],
  ];
  for (const [props, property] of cases) {
    const error = await assertRejects(() => kafkaOptionsFromProperties(props), KafkaConfigError);
    assertEquals((error as KafkaConfigError).property, property, error.message);
  }
});

Deno.test("options: SASL/SCRAM and TLS from JAAS and PEM; the password never reaches errors or logs", async () => {
  const password = 'pa55-w0rd;"with quotes"';
  const jaas = (module: string) =>
    `org.apache.kafka.common.security.${module} required username="svc-user" password="${
      password.replaceAll('"', '\\"')
    }";`;
  const dir = await Deno.makeTempDir();
  try {
    const pem = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";
    await Deno.writeTextFile(`${dir}/ca.pem`, pem);
    const options = await kafkaOptionsFromProperties({
      "bootstrap.servers": "k:9093",
      "security.protocol": "sasl_ssl",
      "sasl.mechanism": "SCRAM-SHA-512",
      "sasl.jaas.config": jaas("scram.ScramLoginModule"),
      "ssl.truststore.type": "PEM",
      "ssl.truststore.location": `${dir}/ca.pem`,
      "ssl.endpoint.identification.algorithm": "",
    });
    assertEquals(options.connection.sasl, { mechanism: "scram-sha-512", username: "svc-user", password });
    assertEquals(options.connection.tls, { ca: [pem.trim()], checkServerIdentity: false });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }

  const mismatch = await assertRejects(
    () =>
      kafkaOptionsFromProperties({
        "bootstrap.servers": "k:9093",
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN",
        "sasl.jaas.config": jaas("scram.ScramLoginModule"),
      }),
    KafkaConfigError,
  );
  assert(!mismatch.message.includes("pa55"), mismatch.message);

  // A client that authenticates against the mock (which has no SASL): the failure and every log line are clean.
  const lines: string[] = [];
  setLogSink((line) => lines.push(line));
  await using mock = startKafkaMock({ brokers: 1 });
  try {
    const { connection } = await kafkaOptionsFromProperties({
      "bootstrap.servers": mock.bootstrapServers,
      "security.protocol": "SASL_PLAINTEXT",
      "sasl.mechanism": "PLAIN",
      "sasl.jaas.config": jaas("plain.PlainLoginModule"),
      "request.timeout.ms": "1000",
      "retries": "0",
    });
    const kafka = createKafka(connection);
    const error = await assertRejects(() => kafka.producer({ retries: 0 }));
    logger("test").error({ err: error, connection }, "kafka connection failed");
    assert(!String(error.stack).includes("pa55"), "the error shows the password");
  } finally {
    setLogSink((line) => Deno.stderr.writeSync(new TextEncoder().encode(line)));
  }
  assert(lines.length > 0, "nothing was logged");
  const leaked = lines.filter((l) => l.includes("pa55") || l.includes("with quotes"));
  assertEquals(leaked, []);
});

Deno.test("options: the config rules judge transaction.boundary.interval.ms against the client's own default transaction timeout", () => {
  assertEquals(DEFAULT_TRANSACTION_TIMEOUT_MS, DEFAULT_PRODUCER_OPTIONS.transactionTimeoutMs);
});
