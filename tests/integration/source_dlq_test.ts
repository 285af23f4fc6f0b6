/**
 * Source record errors routed to the dead letter topic through the daemon: a typed-mode mismatch is a bad row;
 * with errors.tolerance=all and a DLQ topic it lands there (with Connect's context headers) while every other
 * row reaches its topic and the task keeps running.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";

Deno.test("a bad row goes to the dead letter topic under errors.tolerance=all; the others flow", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 30 }, users: ["admin:pw-Dlq-Stork-9"] });
  const table = sim.table("incident");
  const bad = table.sysIds()[7];
  table.update(bad, { reassignment_count: "not-a-number" });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("dlq.incident", 1);
  await kafka.createTopic("dlq.errors", 1);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "dlq",
      config: {
        "connector.class": "TableSourceConnector",
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": "pw-Dlq-Stork-9",
        "svc.tables": "incident",
        "svc.table.incident.name": "incident",
        "svc.table.incident.topic": "dlq.incident",
        "svc.source.schema.mode": "typed",
        "svc.source.typed.fields": "reassignment_count:int32",
        "svc.source.schema.evolution": "fail",
        "svc.source.bad.row.behavior": "fail",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "true",
        "errors.tolerance": "all",
        "errors.deadletterqueue.topic.name": "dlq.errors",
        "errors.deadletterqueue.context.headers.enable": "true",
      },
    }],
  });
  try {
    const good = await waitFor(
      async () => {
        const r = await readTopicWithKcat(kafka.bootstrapServers, "dlq.incident");
        return r.length >= 29 ? r : null;
      },
      30_000,
      "29 good rows",
    );
    assert(!good.some((r) => r.key === bad), "the bad row reached the data topic");
    const dead = await waitFor(
      async () => {
        const r = await readTopicWithKcat(kafka.bootstrapServers, "dlq.errors");
        return r.length > 0 ? r : null;
      },
      30_000,
      "a dead-lettered row",
    );
    assertEquals(dead.length, 1);
    assertEquals(dead[0].key, bad);
    assertStringIncludes(dead[0].value!, "not-a-number");
    assertEquals(dead[0].headers["__connect.errors.connector.name"], "dlq");
    assertStringIncludes(dead[0].headers["__connect.errors.exception.message"], "reassignment_count");
    assertEquals((await daemon.request("GET", "/connectors/dlq/status")).body.tasks[0].state, "RUNNING");
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
