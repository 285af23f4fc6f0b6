/**
 * A source with a transform chain and a predicate, end to end through the daemon: ReplaceField keeps a few
 * fields, InsertField adds a static field, RegexRouter renames the topic, and Filter with a TopicNameMatches
 * predicate drops the problem table's records.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { startSimulator } from "../../src/sim/mod.ts";

Deno.test("transform chain with a predicate runs on source records end to end", async () => {
  const sim = await startSimulator({
    port: 0,
    seed: { incident: 200, problem: 50 },
    users: ["admin:pw-Chain-22"],
  });
  await using kafka = await startKafkaBroker();
  for (const t of ["chain.incident", "chain.problem", "mirror.incident", "mirror.problem"]) {
    await kafka.createTopic(t, 1);
  }
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "chain",
      config: {
        "connector.class": "TableSourceConnector",
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": "pw-Chain-22",
        "svc.tables": "incident,problem",
        "svc.table.incident.name": "incident",
        "svc.table.incident.topic": "chain.incident",
        "svc.table.problem.name": "problem",
        "svc.table.problem.topic": "chain.problem",
        "transforms": "dropProblems,keep,tag,route",
        "transforms.dropProblems.type": "org.apache.kafka.connect.transforms.Filter",
        "transforms.dropProblems.predicate": "isProblem",
        "transforms.keep.type": "org.apache.kafka.connect.transforms.ReplaceField$Value",
        "transforms.keep.include": "sys_id,number,short_description,sys_updated_on",
        "transforms.keep.renames": "short_description:summary",
        "transforms.tag.type": "org.apache.kafka.connect.transforms.InsertField$Value",
        "transforms.tag.static.field": "origin",
        "transforms.tag.static.value": "tablesync",
        "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.route.regex": "chain\\.(.*)",
        "transforms.route.replacement": "mirror.$1",
        "predicates": "isProblem",
        "predicates.isProblem.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "predicates.isProblem.pattern": ".*\\.problem",
      },
    }],
  });
  try {
    const records = await consumeAll(kafka.bootstrapServers, "mirror.incident", {
      expected: 200,
      timeoutMs: 30_000,
    });
    assertEquals(records.length, 200, daemon.output().slice(-2000));
    const value = JSON.parse(records[0].value!);
    assertEquals(Object.keys(value).sort(), ["number", "origin", "summary", "sys_id", "sys_updated_on"]);
    assertEquals(value.origin, "tablesync");
    assertEquals(records[0].key, value.sys_id);
    // Nothing reached the untransformed topics, and the problem table's records were filtered out.
    assertEquals(
      (await consumeAll(kafka.bootstrapServers, "chain.incident", { expected: 0, timeoutMs: 500 })).length,
      0,
    );
    assertEquals(
      (await consumeAll(kafka.bootstrapServers, "mirror.problem", { expected: 0, timeoutMs: 1500 })).length,
      0,
    );
    const status = await daemon.request("GET", "/connectors/chain/status");
    assert(status.body.tasks.every((t: any) => t.state === "RUNNING"), JSON.stringify(status.body));
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
