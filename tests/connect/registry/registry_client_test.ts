/**
 * Registry access: credentials (basic from user info or the URL, bearer) sent and never logged or put in
 * errors, fail-over across several URLs with one down, retries on 5xx, retriable failure when every attempt
 * fails, TLS with a trust store, and converters chosen by class name through the factory.
 */
import { capturingLogs } from "../../support/logs.ts";
import { freePort } from "../../support/ports.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../../support/assert.ts";
import { startSchemaRegistry } from "../../support/schema_registry.ts";
import { tlsFixtures } from "../../support/tls_fixtures.ts";
import { AvroConverter } from "../../../src/connect/registry/avro/avro_converter.ts";
import { ConfigException } from "../../../src/connect/errors.ts";
import { RetriableException } from "../../../src/connect/task_api.ts";
import { createTaskConverters, loadTaskConverterPlugins } from "../../../src/connect/converters/factory.ts";
import { isPreparingConverter } from "../../../src/connect/converters/preparing_converter.ts";
import { stringsSchema, stringsValue, TOPIC, write } from "./fixtures.ts";

const SECRET = "S3cr3t-Registry-Passw0rd";

function avro(configs: Record<string, string>): AvroConverter {
  const c = new AvroConverter();
  c.configure({ "retries.wait.ms": "1", "retries.max.wait.ms": "2", ...configs }, false);
  return c;
}

const schema = stringsSchema(["sys_id"]);
const value = stringsValue(schema, { sys_id: "abc" });

/** A URL nobody listens on (a port that was just free). */
function deadUrl(): string {
  return `http://127.0.0.1:${freePort()}`;
}

Deno.test("basic auth from basic.auth.user.info is sent; the password never appears in logs or errors", async () => {
  const expected = `Basic ${btoa(`registry-user:${SECRET}`)}`;
  await using registry = startSchemaRegistry({ requireAuthorization: expected });
  const ok = avro({
    "schema.registry.url": registry.url,
    "basic.auth.credentials.source": "USER_INFO",
    "basic.auth.user.info": `registry-user:${SECRET}`,
  });
  await write(ok, schema, value);
  assertEquals(registry.requests.map((r) => r.authorization), [expected]);

  // Wrong password: a 401 DataException; 5xx before it produce fail-over warnings. No secret anywhere.
  registry.failNext(1, 503);
  const { result, lines } = await capturingLogs(() =>
    write(
      avro({
        "schema.registry.url": `${deadUrl()},${registry.url}`,
        "basic.auth.credentials.source": "USER_INFO",
        "basic.auth.user.info": `registry-user:wrong-${SECRET}`,
      }),
      schema,
      value,
    ).catch((e) => e as Error)
  );
  const logs = lines.join("");
  assert(result instanceof Error, "expected a failure");
  assert(result.message.includes("401"), result.message);
  assert(logs.includes("trying the next URL"), logs);
  for (const text of [result.message, result.stack ?? "", logs]) {
    assert(!text.includes(SECRET), `secret leaked: ${text}`);
    assert(!text.includes(btoa(`registry-user:wrong-${SECRET}`)), `header leaked: ${text}`);
  }
});

Deno.test("user info in the URL (credentials source URL) and bearer tokens are sent as headers", async () => {
  await using registry = startSchemaRegistry();
  const url = new URL(registry.url);
  url.username = "u";
  url.password = SECRET;
  await write(avro({ "schema.registry.url": url.toString() }), schema, value);
  assertEquals(registry.requests[0].authorization, `Basic ${btoa(`u:${SECRET}`)}`);

  await write(
    avro({
      "schema.registry.url": registry.url,
      "bearer.auth.credentials.source": "STATIC_TOKEN",
      "bearer.auth.token": "tok-123456789",
      "bearer.auth.logical.cluster": "lsrc-1",
    }),
    stringsSchema(["other"]),
    stringsValue(stringsSchema(["other"]), {}),
  );
  assertEquals(registry.requests.at(-1)!.authorization, "Bearer tok-123456789");
  assertThrows(
    () => avro({ "schema.registry.url": registry.url, "basic.auth.credentials.source": "SASL_INHERIT" }),
    ConfigException,
    "SASL_INHERIT",
  );
  assertThrows(() => avro({}), ConfigException, "schema.registry.url");
});

Deno.test("several registry URLs: the first is down, requests fail over to the next", async () => {
  await using registry = startSchemaRegistry();
  const converter = avro({ "schema.registry.url": `${deadUrl()}, ${registry.url}` });
  const bytes = await write(converter, schema, value);
  assert(bytes !== null);
  assertEquals(registry.versions(`${TOPIC}-value`).length, 1);
});

Deno.test("5xx answers are retried; when retries run out the failure is retriable", async () => {
  await using registry = startSchemaRegistry();
  registry.failNext(2, 503);
  await write(avro({ "schema.registry.url": registry.url }), schema, value);
  assertEquals(registry.requests.length, 3);

  registry.failNext(10, 500);
  const other = stringsSchema(["x"]);
  const error = await assertRejects(
    () =>
      write(
        avro({ "schema.registry.url": registry.url, "max.retries": "2" }),
        other,
        stringsValue(other, {}),
      ),
    RetriableException,
    "after 3 attempt(s)",
  );
  assert(error.message.includes("HTTP 500"), error.message);
});

Deno.test("TLS: an https registry is reached with a PKCS12 or PEM trust store", async () => {
  const tls = await tlsFixtures();
  await using registry = startSchemaRegistry({ tls: { cert: tls.serverCertPem, key: tls.serverKeyPem } });
  await write(
    avro({
      "schema.registry.url": registry.url,
      "schema.registry.ssl.truststore.location": tls.truststoreP12,
      "schema.registry.ssl.truststore.password": tls.password,
      "schema.registry.ssl.truststore.type": "PKCS12",
    }),
    schema,
    value,
  );
  const pem = await Deno.makeTempFile({ suffix: ".pem" });
  try {
    await Deno.writeTextFile(pem, tls.caPem);
    await write(
      avro({
        "schema.registry.url": registry.url,
        "schema.registry.ssl.truststore.location": pem,
        "schema.registry.ssl.truststore.type": "PEM",
      }),
      stringsSchema(["pem"]),
      stringsValue(stringsSchema(["pem"]), {}),
    );
  } finally {
    await Deno.remove(pem);
  }
  assertEquals(registry.subjects(), [`${TOPIC}-value`]);
  assertEquals(registry.versions(`${TOPIC}-value`).length, 2);
});

Deno.test("converters are chosen by Connect's class names with prefixed settings", async () => {
  await using registry = startSchemaRegistry();
  for (
    const className of [
      "io.confluent.connect.avro.AvroConverter",
      "io.confluent.connect.json.JsonSchemaConverter",
      "io.confluent.connect.protobuf.ProtobufConverter",
    ]
  ) {
    const config = {
      "value.converter": className,
      "value.converter.schema.registry.url": registry.url,
      "value.converter.value.subject.name.strategy":
        "io.confluent.kafka.serializers.subject.RecordNameStrategy",
    };
    // Naming a schema registry converter does not load it; the task environment loads it first.
    assertThrows(() => createTaskConverters(config), Error, "is not loaded");
    await loadTaskConverterPlugins(config);
    const converters = createTaskConverters(config);
    assert(isPreparingConverter(converters.valueConverter), className);
    await write(converters.valueConverter, schema, value);
  }
  assertEquals(registry.subjects(), ["tablesync.incident"]);
  assertEquals(registry.versions("tablesync.incident").map((v) => v.schemaType), [
    "AVRO",
    "JSON",
    "PROTOBUF",
  ]);
});
