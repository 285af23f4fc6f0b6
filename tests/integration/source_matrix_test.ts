/**
 * Every cell of schema mode × display value × envelope × converter, through the daemon, checked on the bytes
 * Kafka holds. Expected values are computed independently from the simulator's own REST answers for the same
 * rows (display false and all), not from the source's code. Invalid pairings (schemaless with a schema-bearing
 * converter) are rejected at validation, which tests/config covers.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { type KcatRecord, readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { parseDateTimeUtc } from "../../src/config/validators.ts";
import {
  apiRows,
  expectedValue,
  matrixSourceConfig,
  PASSWORD,
  ROWS,
  sorted,
} from "../support/source_expectations.ts";

async function runMode(mode: "schemaless" | "strings" | "typed") {
  const sim = await startSimulator({ port: 0, seed: { incident: ROWS }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const cells: { name: string; display: string; envelope: boolean; schemas: boolean; topic: string }[] = [];
  for (const display of ["false", "true", "all"]) {
    for (const envelope of [false, true]) {
      for (const schemas of mode === "schemaless" ? [false] : [false, true]) {
        const name = `${mode}-${display}-${envelope ? "env" : "plain"}-${schemas ? "schemas" : "noschemas"}`;
        cells.push({ name, display, envelope, schemas, topic: `m.${name}` });
        await kafka.createTopic(`m.${name}`, 1);
      }
    }
  }
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: cells.map((c) => ({
      name: c.name,
      config: matrixSourceConfig(sim.url, { ...c, mode }, {
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": c.schemas,
      }),
    })),
  });
  try {
    const raw = await apiRows(sim.url, "false");
    const all = await apiRows(sim.url, "all");
    const host = new URL(sim.url).hostname;
    for (const cell of cells) {
      // kcat reads without a consumer group: an independent client, and no group join per topic.
      const records: KcatRecord[] = (await waitFor(
        async () => {
          const got = await readTopicWithKcat(kafka.bootstrapServers, cell.topic);
          return got.length >= ROWS ? got : null;
        },
        30_000,
        `${ROWS} records on ${cell.topic}`,
      ).catch(() => null)) ?? await readTopicWithKcat(kafka.bootstrapServers, cell.topic);
      assertEquals(records.length, ROWS, `${cell.name}: ${daemon.output().slice(-1500)}`);
      for (const record of records) {
        const id = record.key!;
        assert(raw.has(id), `${cell.name}: key ${id} is not a sys_id`);
        assertEquals(
          record.timestamp,
          parseDateTimeUtc(raw.get(id)!.sys_updated_on as string),
          `${cell.name} timestamp`,
        );
        assertEquals(record.headers["svc.table"], "incident");
        assertEquals(record.headers["svc.instance"], host);
        assertEquals(record.headers["svc.source.operation"], "UPSERT");
        assertEquals(record.headers["svc.schema.mode"], mode);
        assert(/^\d+$/.test(record.headers["svc.extracted_at"]), `${cell.name}: svc.extracted_at`);
        let value = JSON.parse(record.value!);
        if (cell.schemas) {
          assertEquals(Object.keys(value).sort(), ["payload", "schema"], cell.name);
          assertEquals(value.schema.type, "struct", cell.name);
          value = value.payload;
        }
        const expected = expectedValue(mode, cell.display, raw.get(id)!, all.get(id)!);
        if (cell.envelope) {
          assertEquals(value.before, null, cell.name);
          assertEquals(value.op, "u", cell.name);
          assertEquals(value.source, { table: "incident", instance: host }, cell.name);
          assert(typeof value.ts_ms === "number", `${cell.name}: ts_ms`);
          value = value.after;
        }
        assertEquals(sorted(value), sorted(expected), `${cell.name} value of ${id}`);
      }
    }
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
}

Deno.test("schemaless × display × envelope: bytes on the topic", () => runMode("schemaless"));
Deno.test("strings × display × envelope × JSON with and without schemas: bytes on the topic", () =>
  runMode("strings"));
Deno.test("typed × display × envelope × JSON with and without schemas: bytes on the topic", () =>
  runMode("typed"));
