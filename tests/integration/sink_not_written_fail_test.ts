/**
 * A create the instance stored without one of its fields (a field write ACL: 200, the field left out) is a
 * `not_written` record error; with `errors.tolerance=none` it fails the task. The row exists, though: the task
 * commits past that record as it fails, so a restart goes on with the next record instead of creating the row a
 * second time (and failing again, for ever).
 */
import { assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { produceWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess, waitFor } from "../support/daemon_process.ts";
import { sinkConnectorConfig } from "../support/source_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-NotWritten-Otter-17";

Deno.test({
  name: "a create stored without a field fails the task once; its restart does not create the row again",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const sim = await startSimulator({ seed: { incident: 0 }, users: [`admin:${PASSWORD}`] });
    sim.writeRules.add({ kind: "write_acl", table: "incident", fields: ["description"] });
    await using kafka = await startKafkaBroker();
    const input = uniqueName("nw.in");
    await kafka.createTopic(input, 1);
    const line = (value: Record<string, string>) => `\t${JSON.stringify(value)}`;
    await produceWithKcat(kafka.bootstrapServers, input, [
      line({ short_description: "locked create", description: "kept out by the ACL" }),
      line({ short_description: "next create" }),
    ], true);

    const daemon = await startDaemonProcess({
      worker: { "bootstrap.servers": kafka.bootstrapServers },
      connectors: [{
        name: "nw",
        config: sinkConnectorConfig(sim.url, PASSWORD, input, {
          "key.converter": "org.apache.kafka.connect.storage.StringConverter",
          "value.converter": "org.apache.kafka.connect.json.JsonConverter",
          "value.converter.schemas.enable": false,
        }),
      }],
    });
    try {
      const incident = sim.table("incident");
      const rows = (text: string) =>
        incident.sysIds().filter((id) => incident.get(id)?.short_description === text).length;
      const taskState = async () =>
        (await daemon.request("GET", "/connectors/nw/status")).body?.tasks?.[0]?.state;
      await waitFor(async () => (await taskState()) === "FAILED", 60_000, "the task FAILED on not_written");
      assertEquals(rows("locked create"), 1, "created once");

      assertEquals((await daemon.request("POST", "/connectors/nw/tasks/0/restart")).status, 204);
      await waitFor(() => rows("next create") === 1, 60_000, "the next record written after the restart");
      assertEquals(rows("locked create"), 1, "the restart did not create the row again");
      assertEquals(await taskState(), "RUNNING");
    } finally {
      await daemon.stop();
      await sim.stop();
    }
  },
});
