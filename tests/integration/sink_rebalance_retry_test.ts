/**
 * A sink whose writes fail retriably (the instance answering 503) while its consumer group rebalances (another
 * member joins, then leaves): the task keeps redelivering through both rebalances, is never left FAILED, and once
 * the instance answers again every record is written.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { produceWithKcat, visitConsumerGroup } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sinkConnectorConfig } from "../support/sink_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Rebalance-Marten-23";

Deno.test({
  name:
    "a sink redelivering through a rebalance is restarted by the daemon, never left FAILED; every record lands",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const sim = await startSimulator({ seed: { incident: 20 }, users: [`admin:${PASSWORD}`] });
    const refusing = sim.faults.add({
      route: "PATCH /api/now/table/incident/{sys_id}",
      fault: { kind: "status", status: 503 },
    });
    await using kafka = await startKafkaBroker();
    const input = uniqueName("rb.in");
    await kafka.createTopic(input, 1);
    const ids = sim.table("incident").sysIds().slice(0, 10);
    await produceWithKcat(
      kafka.bootstrapServers,
      input,
      ids.map((id, i) => `${id}\t${JSON.stringify({ short_description: `rebalanced ${i}` })}`),
      true,
    );
    const name = "rb";
    const daemon = await startDaemonProcess({
      worker: { "bootstrap.servers": kafka.bootstrapServers },
      connectors: [{
        name,
        config: sinkConnectorConfig(sim.url, PASSWORD, {
          topics: input,
          "key.converter": "org.apache.kafka.connect.storage.StringConverter",
          "value.converter": "org.apache.kafka.connect.json.JsonConverter",
          "value.converter.schemas.enable": false,
          "svc.retry.max.attempts": 2,
          "svc.retry.initial.backoff.ms": 50,
          "consumer.override.session.timeout.ms": 6000,
        }),
      }],
    });
    try {
      const states = new Set<string>();
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const status = await daemon.request("GET", `/connectors/${name}/status`).catch(() => null);
          for (const task of status?.body?.tasks ?? []) states.add(task.state);
          await new Promise((r) => setTimeout(r, 250));
        }
      })();
      const taskWarnings = async () =>
        (await daemon.request("GET", `/connectors/${name}/status`)).body?.tasks?.[0]?.warnings ?? [];
      await waitFor(async () => (await taskWarnings()).length > 0, 60_000, "the sink redelivering");
      await visitConsumerGroup(kafka.bootstrapServers, `connect-${name}`, input, 8_000);
      await new Promise((r) => setTimeout(r, 3_000));
      sim.faults.remove(refusing);
      const incident = sim.table("incident");
      await waitFor(
        () => ids.every((id, i) => incident.get(id)?.short_description === `rebalanced ${i}`),
        90_000,
        "every record written once the instance answers",
      ).catch((e) => {
        throw new Error(
          `${e.message}; states ${[...states]}; ${daemon.output().split("\n").slice(-30).join("\n")}`,
        );
      });
      await waitFor(
        async () =>
          (await daemon.request("GET", `/connectors/${name}/status`)).body?.tasks?.[0]?.state === "RUNNING",
        30_000,
        "the task RUNNING",
      );
      sampling = false;
      await sampler;
      console.log(`sink through a rebalance while redelivering: task states ${[...states].join(", ")}`);
      assert(states.has("RUNNING"));
      assertEquals(
        (await daemon.request("GET", `/connectors/${name}/status`)).body?.tasks?.[0]?.state,
        "RUNNING",
      );
    } finally {
      await daemon.stop();
      await sim.stop();
    }
  },
});
