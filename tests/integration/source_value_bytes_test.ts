/**
 * The schemaless JSON value on the topic is, byte for byte, what Kafka's JsonConverter (Jackson) writes for the
 * row, whether the daemon hands on the bytes it read (common/verbatim_json.ts) or writes the row again: quotes,
 * backslashes, line breaks and non-ASCII text (handed on), control characters and characters beyond the Basic
 * Multilingual Plane (written again, as Jackson escapes them). Expected bytes come from the exact writer
 * (json_data.ts), never from the bytes the simulator sent.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { JsonDataCodec } from "../../src/connect/converters/json/json_data.ts";
import { DEFAULT_JSON_CONVERTER_SETTINGS } from "../../src/connect/converters/json/json_converter_config.ts";
import { apiRows, matrixSourceConfig, PASSWORD } from "../support/source_expectations.ts";

const DESCRIPTIONS = [
  "plain text",
  'He said "hi" \\ C:\\temp\\new',
  "line 1\nline 2\r\n\tindented\b\f",
  "Zoë Müller – 東京 ☃ naïve",
  "emoji 😀 here",
  "bell\u0007 and \u0001 and \u001f",
  "a/b </script> ~ \u007f",
];

Deno.test("schemaless JSON values on the topic are Jackson's bytes for every row, read verbatim or not", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 30 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const topic = "bytes.incident";
  await kafka.createTopic(topic, 1);
  for (const description of DESCRIPTIONS) {
    const res = await fetch(`${sim.url}/api/now/table/incident`, {
      method: "POST",
      headers: { authorization: `Basic ${btoa(`admin:${PASSWORD}`)}`, "content-type": "application/json" },
      body: JSON.stringify({ short_description: description, description: `${description} (long)` }),
    });
    assertEquals(res.status, 201, await res.text());
  }
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "bytes",
      config: matrixSourceConfig(sim.url, { topic, mode: "schemaless", display: "false", envelope: false }, {
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": false,
      }),
    }],
  });
  try {
    const rows = await apiRows(sim.url, "false");
    assertEquals(rows.size, 30 + DESCRIPTIONS.length);
    const records = await waitFor(
      async () => {
        const got = await readTopicWithKcat(kafka.bootstrapServers, topic);
        return got.length >= rows.size ? got : null;
      },
      30_000,
      `${rows.size} records on ${topic}`,
    );
    const jackson = new JsonDataCodec(DEFAULT_JSON_CONVERTER_SETTINGS);
    const seen = new Set<string>();
    for (const record of records) {
      const row = rows.get(record.key!);
      assert(row !== undefined, `key ${record.key} is not a sys_id`);
      assertEquals(
        record.value,
        jackson.toJson(null, new Map(Object.entries(row))),
        `value of ${record.key}`,
      );
      seen.add(row.short_description as string);
    }
    for (const description of DESCRIPTIONS) {
      assert(seen.has(description), `a record for ${JSON.stringify(description)}`);
    }
    assert(records.some((r) => r.value!.includes("\\uD83D\\uDE00")), "the emoji as Jackson escapes it");
    assert(records.some((r) => r.value!.includes("\\u0007")), "the bell as Jackson escapes it");
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
