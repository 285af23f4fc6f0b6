/**
 * The converter matrix's registry rows, through the daemon: strings and typed modes × display value × envelope
 * with the Avro, JSON Schema and Protobuf converters. Every record on the topic carries the registry framing
 * (magic byte, an id registered under the topic's value subject); decoded with the same converter class it holds
 * exactly the value computed independently from the simulator's REST answers.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { consumeToEndWithKcat, type KcatRecord, readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSchemaRegistry } from "../support/schema_registry.ts";
import {
  apiRows,
  expectedValue,
  matrixSourceConfig,
  PASSWORD,
  ROWS,
  sorted,
} from "../support/source_expectations.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { defaultConverterRegistry } from "../../src/connect/converters/registry.ts";
import { toConnectDataAsync } from "../../src/connect/converters/preparing_converter.ts";
import { JsonConverter } from "../../src/connect/converters/json/json_converter.ts";

const CLASSES = {
  avro: "io.confluent.connect.avro.AvroConverter",
  jsonschema: "io.confluent.connect.json.JsonSchemaConverter",
  protobuf: "io.confluent.connect.protobuf.ProtobufConverter",
} as const;

/** Raw value bytes, split exactly: kcat prints each value size (%S), a newline, then the value (%s). */
async function rawValues(bootstrap: string, topic: string): Promise<Uint8Array[]> {
  const bytes = await consumeToEndWithKcat(bootstrap, topic, ["-f", "%S\n%s"]);
  const values: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    let nl = at;
    while (bytes[nl] !== 0x0a) nl++;
    const size = Number(new TextDecoder().decode(bytes.slice(at, nl)));
    values.push(bytes.slice(nl + 1, nl + 1 + size));
    at = nl + 1 + size;
  }
  return values;
}

async function runFormat(format: keyof typeof CLASSES) {
  const sim = await startSimulator({ port: 0, seed: { incident: ROWS }, users: [`admin:${PASSWORD}`] });
  await using registry = startSchemaRegistry();
  await using kafka = await startKafkaBroker();
  const settings: Record<string, string> = {
    "schema.registry.url": registry.url,
    ...(format === "protobuf" ? { "wrapper.for.nullables": "true" } : {}),
  };
  const cells: { name: string; mode: string; display: string; envelope: boolean; topic: string }[] = [];
  for (const mode of ["strings", "typed"]) {
    for (const display of ["false", "true", "all"]) {
      for (const envelope of [false, true]) {
        const name = `${format}-${mode}-${display}-${envelope ? "env" : "plain"}`;
        cells.push({ name, mode, display, envelope, topic: `r.${name}` });
        await kafka.createTopic(`r.${name}`, 1);
      }
    }
  }
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: cells.map((c) => ({
      name: c.name,
      config: matrixSourceConfig(sim.url, c, {
        "value.converter": CLASSES[format],
        ...Object.fromEntries(Object.entries(settings).map(([k, v]) => [`value.converter.${k}`, v])),
      }),
    })),
  });
  try {
    const raw = await apiRows(sim.url, "false");
    const all = await apiRows(sim.url, "all");
    const host = new URL(sim.url).hostname;
    const plain = new JsonConverter();
    plain.configure({ "schemas.enable": "false" }, false);
    for (const cell of cells) {
      const records: KcatRecord[] = await waitFor(
        async () => {
          const got = await readTopicWithKcat(kafka.bootstrapServers, cell.topic);
          return got.length >= ROWS ? got : null;
        },
        30_000,
        `${ROWS} records on ${cell.topic}`,
      );
      const values = await rawValues(kafka.bootstrapServers, cell.topic);
      assertEquals(values.length, records.length, cell.name);
      const converter = (await defaultConverterRegistry.load(CLASSES[format]))!.newConverter!();
      converter.configure({ ...settings, "converter.type": "value" }, false);
      const ids = new Set(registry.versions(`${cell.topic}-value`).map((v) => v.id));
      for (let i = 0; i < records.length; i++) {
        const bytes = values[i];
        assertEquals(bytes[0], 0, `${cell.name}: magic byte`);
        const id = new DataView(bytes.buffer, bytes.byteOffset + 1, 4).getInt32(0);
        assert(ids.has(id), `${cell.name}: schema id ${id} is not registered under ${cell.topic}-value`);
        const decoded = await toConnectDataAsync(converter, cell.topic, bytes);
        let value = JSON.parse(plain.toJsonText(decoded.schema, decoded.value));
        const key = records[i].key!;
        if (cell.envelope) {
          assertEquals(value.before, null, cell.name);
          assertEquals(value.op, "u", cell.name);
          assertEquals(value.source, { table: "incident", instance: host }, cell.name);
          value = value.after;
        }
        assertEquals(
          sorted(value),
          sorted(expectedValue(cell.mode, cell.display, raw.get(key)!, all.get(key)!)),
          `${cell.name} value of ${key}`,
        );
      }
    }
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
}

Deno.test("Avro: strings and typed × display × envelope, decoded from the topic", () => runFormat("avro"));
Deno.test("JSON Schema: strings and typed × display × envelope, decoded from the topic", () =>
  runFormat("jsonschema"));
Deno.test("Protobuf: strings and typed × display × envelope, decoded from the topic", () =>
  runFormat("protobuf"));
