/**
 * The sink through the real daemon, fed by an independent client (kcat):
 *  - each input shape (Map, Struct with schemas and logical types, String holding JSON, String and Struct keys,
 *    tombstones) lands in the simulator's table as the spec says; other primitives are record errors that go to
 *    the dead letter queue and the error reporter;
 *  - a round trip: the source reads instance A's incident table into a topic and the sink writes it into
 *    instance B; B's user fields equal A's.
 */
import { sinkConnectorConfig } from "../support/sink_connector.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { produceWithKcat, readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Sink-Otter-23";

Deno.test("input shapes produced by kcat land as the spec says; other primitives are record errors", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 10 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  for (const t of ["in.map", "in.struct", "in.string", "in.dlq", "in.errors", "in.ok"]) {
    await kafka.createTopic(t, 1);
  }
  const incident = sim.table("incident");
  const [a, b, c, d] = incident.sysIds();
  const reporter = {
    "svc.sink.reporter.bootstrap.servers": kafka.bootstrapServers,
    "svc.sink.reporter.success.topic": "in.ok",
    "svc.sink.reporter.error.topic": "in.errors",
  };
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [
      {
        name: "map",
        config: sinkConnectorConfig(sim.url, PASSWORD, {
          topics: "in.map",
          "key.converter": "org.apache.kafka.connect.storage.StringConverter",
          "value.converter": "org.apache.kafka.connect.json.JsonConverter",
          "value.converter.schemas.enable": false,
          "svc.sink.nested.behavior": "flatten",
          "svc.sink.unknown.field.behavior": "passthrough",
          ...reporter,
        }),
      },
      {
        name: "struct",
        config: sinkConnectorConfig(sim.url, PASSWORD, {
          topics: "in.struct",
          "key.converter": "org.apache.kafka.connect.json.JsonConverter",
          "key.converter.schemas.enable": true,
          "value.converter": "org.apache.kafka.connect.json.JsonConverter",
          "value.converter.schemas.enable": true,
        }),
      },
      {
        name: "string",
        config: sinkConnectorConfig(sim.url, PASSWORD, {
          topics: "in.string",
          "key.converter": "org.apache.kafka.connect.storage.StringConverter",
          "value.converter": "org.apache.kafka.connect.storage.StringConverter",
          "errors.tolerance": "all",
          "errors.deadletterqueue.topic.name": "in.dlq",
          "errors.deadletterqueue.context.headers.enable": true,
          "behavior.on.api.errors": "log",
          // Altering offsets joins the group briefly; the mock broker wants matching session timeouts.
          "consumer.override.session.timeout.ms": 6000,
          "consumer.override.heartbeat.interval.ms": 1000,
          ...reporter,
        }),
      },
    ],
  });
  try {
    // Map (schemaless JSON): a String key updates, no key creates, a tombstone deletes; nested values flatten.
    await produceWithKcat(kafka.bootstrapServers, "in.map", [
      `${a}\t{"short_description":"patched by map","close":{"notes":"flattened"}}`,
      `${b}\t`,
    ], true);
    await produceWithKcat(
      kafka.bootstrapServers,
      "in.map",
      [`{"short_description":"created by map"}`],
      false,
    );
    // Struct with schemas: a Struct key, a Timestamp and a Decimal rendered as the instance expects.
    const structKey = JSON.stringify({
      schema: {
        type: "struct",
        optional: false,
        fields: [{ type: "string", optional: false, field: "sys_id" }],
      },
      payload: { sys_id: c },
    });
    const structValue = JSON.stringify({
      schema: {
        type: "struct",
        optional: false,
        fields: [
          { type: "string", optional: true, field: "short_description" },
          {
            type: "int64",
            optional: true,
            name: "org.apache.kafka.connect.data.Timestamp",
            version: 1,
            field: "due_date",
          },
          {
            type: "bytes",
            optional: true,
            name: "org.apache.kafka.connect.data.Decimal",
            version: 1,
            parameters: { scale: "2" },
            field: "business_stc",
          },
        ],
      },
      payload: { short_description: "patched by struct", due_date: 1718287200000, business_stc: "AJw=" },
    });
    await produceWithKcat(kafka.bootstrapServers, "in.struct", [`${structKey}\t${structValue}`], true);
    // String holding JSON is parsed; a String that is not a JSON object is a record error (DLQ + reporter).
    await produceWithKcat(kafka.bootstrapServers, "in.string", [
      `${d}\t{"short_description":"patched by string"}`,
      `${d}\tjust some text`,
    ], true);

    await waitFor(() => incident.get(a)?.short_description === "patched by map", 30_000, "map PATCH");
    assertEquals(incident.get(a)!.close_notes, "flattened");
    await waitFor(() => incident.get(b) === undefined, 30_000, "tombstone DELETE");
    await waitFor(
      () => incident.sysIds().some((id) => incident.get(id)!.short_description === "created by map"),
      30_000,
      "keyless POST",
    );
    await waitFor(() => incident.get(c)?.short_description === "patched by struct", 30_000, "struct PATCH");
    assertEquals(incident.get(c)!.due_date, "2024-06-13 14:00:00");
    assertEquals(incident.get(c)!.business_stc, "1.56");
    await waitFor(() => incident.get(d)?.short_description === "patched by string", 30_000, "string PATCH");

    const dlq = await waitFor(
      async () => {
        const r = await readTopicWithKcat(kafka.bootstrapServers, "in.dlq");
        return r.length > 0 ? r : null;
      },
      30_000,
      "a DLQ record",
    );
    assertEquals(dlq[0].value, "just some text");
    assertEquals(dlq[0].headers["__connect.errors.topic"], "in.string");
    assertEquals(dlq[0].headers["__connect.errors.offset"], "1");
    const errors = await waitFor(
      async () => {
        const r = await readTopicWithKcat(kafka.bootstrapServers, "in.errors");
        return r.length > 0 ? r : null;
      },
      30_000,
      "an error report",
    );
    const report = JSON.parse(errors[0].value!);
    assertEquals(report.source, { topic: "in.string", partition: 0, offset: 1 });
    assert(typeof report.exception === "string" && report.exception.length > 0, JSON.stringify(report));
    const ok = await readTopicWithKcat(kafka.bootstrapServers, "in.ok");
    assert(ok.length >= 3, `success reports: ${ok.length}`);
    for (const name of ["map", "struct", "string"]) {
      const status = (await daemon.request("GET", `/connectors/${name}/status`)).body;
      assertEquals(status.tasks[0].state, "RUNNING", JSON.stringify(status));
    }
    // KIP-558: a sink's active topics are those it consumed from.
    assertEquals((await daemon.request("GET", "/connectors/string/topics")).body, {
      string: { topics: ["in.string"] },
    });
    // Sink offsets are the consumer group's committed offsets.
    const offsets = await waitFor(
      async () => {
        const o = (await daemon.request("GET", "/connectors/string/offsets")).body.offsets;
        return o.length > 0 && o[0].offset.kafka_offset === 2 ? o : null;
      },
      30_000,
      "committed sink offsets",
    );
    assertEquals(offsets[0].partition, { kafka_topic: "in.string", kafka_partition: 0 });
    // KIP-875 on a sink: alter and reset the group's offsets while the connector is stopped.
    assertEquals((await daemon.request("PUT", "/connectors/string/stop")).status, 204);
    const partition = { kafka_topic: "in.string", kafka_partition: 0 };
    const altered = await daemon.request("PATCH", "/connectors/string/offsets", {
      offsets: [{ partition, offset: { kafka_offset: 1 } }],
    });
    assertEquals(altered.status, 200, JSON.stringify(altered.body));
    assertEquals((await daemon.request("GET", "/connectors/string/offsets")).body.offsets, [
      { partition, offset: { kafka_offset: 1 } },
    ]);
    const badPartition = await daemon.request("PATCH", "/connectors/string/offsets", {
      offsets: [{ partition: { kafka_topic: "in.string" }, offset: { kafka_offset: 1 } }],
    });
    assertEquals(badPartition.status, 400);
    assertEquals((await daemon.request("DELETE", "/connectors/string/offsets")).status, 200);
    assert(!daemon.output().includes(PASSWORD), "password in output");
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});

Deno.test("round trip: instance A → source → topic → sink → instance B; B's user fields equal A's", async () => {
  const a = await startSimulator({ port: 0, seed: { incident: 150 }, users: [`admin:${PASSWORD}`] });
  const b = await startSimulator({ port: 0, seed: { incident: 0 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("rt.incident", 2);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [
      {
        name: "from-a",
        config: {
          "connector.class": "TableSourceConnector",
          "svc.url": a.url,
          "svc.auth.username": "admin",
          "svc.auth.password": PASSWORD,
          "svc.tables": "incident",
          "svc.table.incident.name": "incident",
          "svc.table.incident.topic": "rt.incident",
        },
      },
      {
        name: "to-b",
        config: sinkConnectorConfig(b.url, PASSWORD, {
          topics: "rt.incident",
          // The key is the sys_id: update it, and create it (keeping the sys_id) when B does not have it yet.
          "svc.sink.not.found.behavior": "create",
          "svc.sink.null.behavior": "clear",
        }),
      },
    ],
  });
  try {
    const ta = a.table("incident");
    const tb = b.table("incident");
    await waitFor(() => tb.count === ta.count, 60_000, `${ta.count} rows in B`);
    const user = (row: Record<string, string>) =>
      Object.fromEntries(Object.entries(row).filter(([k]) => !k.startsWith("sys_") || k === "sys_id"));
    for (const id of ta.sysIds()) {
      const rb = tb.get(id);
      assert(rb, `row ${id} missing in B`);
      assertEquals(user(rb), user(ta.get(id)!), `row ${id}`);
    }
  } finally {
    await daemon.stop("SIGTERM");
    await a.stop();
    await b.stop();
  }
});
