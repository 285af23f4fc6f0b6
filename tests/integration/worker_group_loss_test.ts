/**
 * A group member cut off from Kafka stops its tasks on its own (it can no longer know whether the group gave
 * them to another member): with the broker down, the member stops polling the instance within the session
 * timeout; once the broker is back it joins again, runs its tasks and delivers the rows changed meanwhile.
 * The broker is the librdkafka mock: it takes a broker outage (brokerDown) the real broker cannot.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaMock } from "../support/kafka_mock.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Loss-Wren-41";
const SESSION_TIMEOUT_MS = 6000;
const startBroker = () => startKafkaMock();

Deno.test({
  name:
    "a member cut off from Kafka (mock broker down) stops polling within the session timeout, resumes after",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const sim = await startSimulator({ port: 0, seed: { problem: 50 }, users: [`admin:${PASSWORD}`] });
    await using kafka = startBroker();
    for (
      const [topic, partitions] of [["l.offsets", 5], ["l.configs", 1], ["l.status", 5], [
        "l.problem",
        2,
      ]] as const
    ) {
      kafka.createTopic(topic, partitions);
    }
    const member = await startDaemonProcess({
      worker: {
        "bootstrap.servers": kafka.bootstrapServers,
        "group.id": "loss",
        "offset.storage.topic": "l.offsets",
        "config.storage.topic": "l.configs",
        "status.storage.topic": "l.status",
        "session.timeout.ms": SESSION_TIMEOUT_MS,
        "heartbeat.interval.ms": 1000,
        "offset.flush.interval.ms": 200,
      },
      connectors: [{
        name: "src",
        config: {
          "connector.class": "TableSourceConnector",
          "svc.url": sim.url,
          "svc.auth.username": "admin",
          "svc.auth.password": PASSWORD,
          "svc.tables": "problem",
          "svc.table.problem.name": "problem",
          "svc.table.problem.topic": "l.problem",
          "svc.table.problem.fields": "sys_id,sys_updated_on,sys_mod_count,number",
          "svc.source.poll.interval.ms": 300,
          "svc.source.startup.probe": false,
        },
      }],
    }, { timeoutMs: 60_000 });
    const polls = () =>
      sim.journal.entries().filter((e) => e.method === "GET" && e.table === "problem").length;
    try {
      await waitFor(
        async () => (await readTopicWithKcat(kafka.bootstrapServers, "l.problem")).length >= 50,
        60_000,
      );

      kafka.brokerDown(1);
      // Within the session timeout (plus a graceful stop) the member gives its task up and stops polling.
      await waitFor(
        () => member.output().includes("group membership lost"),
        SESSION_TIMEOUT_MS + 20_000,
        "the member noticing it lost its membership",
      );
      await new Promise((r) => setTimeout(r, 6000)); // the task's graceful stop
      const before = polls();
      await new Promise((r) => setTimeout(r, 3000));
      assertEquals(polls() - before, 0, "polls while cut off from Kafka");
      const changed = sim.table("problem").sysIds().slice(0, 5);
      for (const id of changed) {
        sim.table("problem").update(id, { short_description: "changed while cut off" });
      }

      kafka.brokerUp(1);
      await waitFor(
        async () => {
          const seen = new Set(
            (await readTopicWithKcat(kafka.bootstrapServers, "l.problem")).map((r) =>
              `${r.key}/${JSON.parse(r.value!).sys_mod_count}`
            ),
          );
          return changed.every((id) => seen.has(`${id}/${sim.table("problem").get(id)!.sys_mod_count}`));
        },
        90_000,
        "the rows changed while cut off on the topic after the member rejoined",
      );
      assert(polls() > before, "polling resumed");
    } catch (e) {
      console.log(
        member.output().split("\n").filter((l) => /group|warn|error/i.test(l)).slice(-30).join("\n"),
      );
      throw e;
    } finally {
      await member.stop("SIGTERM");
      await sim.stop();
    }
  },
});
