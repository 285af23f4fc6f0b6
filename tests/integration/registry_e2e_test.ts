/**
 * The schema-registry converters through the daemon: sources in strings and typed modes write Avro, JSON Schema
 * and Protobuf records (registered with a registry over real HTTP) from instance A, and sinks with the same
 * converters write them into instance B. B's rows equal A's, and the Avro bytes decode with avsc.
 */
import avro from "avsc";
import { Buffer } from "node:buffer";
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { consumeToEndWithKcat, readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSchemaRegistry } from "../support/schema_registry.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Registry-Ibis-8";
const CONVERTERS = {
  avro: "io.confluent.connect.avro.AvroConverter",
  jsonschema: "io.confluent.connect.json.JsonSchemaConverter",
  protobuf: "io.confluent.connect.protobuf.ProtobufConverter",
} as const;
const FIELDS = "sys_id,sys_updated_on,number,short_description,priority,active,opened_at";

Deno.test("Avro, JSON Schema and Protobuf: instance A → source → registry-framed topic → sink → instance B", async () => {
  const a = await startSimulator({ port: 0, seed: { incident: 60 }, users: [`admin:${PASSWORD}`] });
  const b = await startSimulator({ port: 0, seed: { incident: 0 }, users: [`admin:${PASSWORD}`] });
  await using registry = startSchemaRegistry();
  await using kafka = await startKafkaBroker();
  const connectors = [];
  for (const [format, cls] of Object.entries(CONVERTERS)) {
    for (const mode of ["strings", "typed"]) {
      const topic = `reg.${format}.${mode}`;
      await kafka.createTopic(topic, 1);
      const converter = {
        "value.converter": cls,
        "value.converter.schema.registry.url": registry.url,
        ...(format === "protobuf" ? { "value.converter.wrapper.for.nullables": "true" } : {}),
      };
      connectors.push({
        name: `src-${format}-${mode}`,
        config: {
          "connector.class": "TableSourceConnector",
          "svc.url": a.url,
          "svc.auth.username": "admin",
          "svc.auth.password": PASSWORD,
          "svc.tables": "incident",
          "svc.table.incident.name": "incident",
          "svc.table.incident.topic": topic,
          "svc.table.incident.fields": FIELDS,
          "svc.source.schema.mode": mode,
          ...(mode === "typed"
            ? { "svc.source.typed.fields": "priority:int32,active:boolean,opened_at:timestamp" }
            : {}),
          ...converter,
        },
      });
      // Only one sink per format writes into B (strings mode); the typed topics are checked on their bytes.
      if (mode === "strings") {
        connectors.push({
          name: `sink-${format}`,
          config: {
            "connector.class": "TableSinkConnector",
            "topics": topic,
            "svc.url": b.url,
            "svc.auth.username": "admin",
            "svc.auth.password": PASSWORD,
            "svc.sink.table": "incident",
            "svc.sink.not.found.behavior": "create",
            ...converter,
          },
        });
      }
    }
  }
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors,
  });
  try {
    const ta = a.table("incident");
    const tb = b.table("incident");
    try {
      await waitFor(() => tb.count === ta.count, 60_000, `${ta.count} rows in B`);
    } catch (e) {
      console.error(daemon.output().split("\n").slice(-120).join("\n"));
      throw e;
    }
    const projected = (row: Record<string, string>) =>
      Object.fromEntries(FIELDS.split(",").filter((f) => f !== "sys_updated_on").map((f) => [f, row[f]]));
    for (const id of ta.sysIds()) assertEquals(projected(tb.get(id)!), projected(ta.get(id)!), `row ${id}`);

    // Every topic's values carry the registry framing, and the subjects were registered.
    for (const format of Object.keys(CONVERTERS)) {
      for (const mode of ["strings", "typed"]) {
        const records = await waitFor(
          async () => {
            const r = await readTopicWithKcat(kafka.bootstrapServers, `reg.${format}.${mode}`);
            return r.length >= ta.count ? r : null;
          },
          30_000,
          `reg.${format}.${mode}`,
        );
        assertEquals(records.length, ta.count);
        assert(registry.subjects().includes(`reg.${format}.${mode}-value`), registry.subjects().join(","));
      }
    }
    // Independent decoding of the Avro typed topic with avsc, through the registered schema.
    const bytes = await consumeToEndWithKcat(kafka.bootstrapServers, "reg.avro.typed", [
      "-c",
      "1",
      "-f",
      "%s",
    ]);
    assertEquals(bytes[0], 0, "magic byte");
    const id = new DataView(bytes.buffer, bytes.byteOffset + 1, 4).getInt32(0);
    const version = registry.versions("reg.avro.typed-value").find((v) => v.id === id);
    assert(version, `schema id ${id} not registered under reg.avro.typed-value`);
    const type = avro.Type.forSchema(JSON.parse(version.schema), { wrapUnions: false });
    const decoded = type.fromBuffer(Buffer.from(bytes.slice(5)));
    const row = ta.get(decoded.sys_id)!;
    assertEquals(decoded.number, row.number);
    assertEquals(decoded.priority, Number(row.priority));
    assertEquals(decoded.active, row.active === "true");
  } finally {
    await daemon.stop("SIGTERM");
    await a.stop();
    await b.stop();
  }
});
