/**
 * `tablesync run`'s signals on the real daemon, with a sink whose creates the instance holds:
 * - the first SIGTERM is a graceful shutdown that lets a create already sent finish and commits its offset, so a
 *   restart does not redeliver it (before, the stop abandoned the POST at once and left the record uncommitted, and
 *   its redelivery created a second row: an abandoned create is ambiguous, the instance may have applied it);
 * - a write still held when the stop's share of the graceful timeout runs out is abandoned, and the records of its
 *   batch written before it are still committed (before, the whole batch was redelivered);
 * - a second signal during a graceful shutdown exits at once with status 1 and says so (an operator's second
 *   Ctrl-C), as the README and `run --help` promise.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { produceRecords } from "../support/kafka_helpers.ts";
import { type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sinkConnectorConfig } from "../support/sink_connector.ts";
import { type Simulator, startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Second-Signal-Kite-61";

function createInFlight(sim: Simulator): boolean {
  return Object.keys(sim.counters.inFlightByRoute()).some((route) => route.startsWith("POST "));
}

async function rows(sim: Simulator): Promise<number> {
  const res = await fetch(`${sim.url}/api/now/table/incident?sysparm_fields=sys_id`, {
    headers: { authorization: `Basic ${btoa(`admin:${PASSWORD}`)}`, accept: "application/json" },
  });
  return (await res.json()).result.length;
}

Deno.test({
  name: "run: a graceful stop lets a sent create finish and commits it; a second signal exits at once with 1",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const sim = await startSimulator({ seed: { incident: 1 }, users: [`admin:${PASSWORD}`] });
    await using kafka = await startKafkaBroker();
    const topic = uniqueName("sig.in");
    await kafka.createTopic(topic, 1);
    const start = (graceMs: number) =>
      startDaemonProcess({
        worker: { "bootstrap.servers": kafka.bootstrapServers, "task.shutdown.graceful.timeout.ms": graceMs },
        // No key: every record is a create (key_value mode).
        connectors: [{ name: "held", config: sinkConnectorConfig(sim.url, PASSWORD, { topics: topic }) }],
      });
    const createHeld = async (daemon: DaemonProcess, ms: number) => {
      sim.faults.add({ method: "POST", table: "incident", fault: { kind: "latency", ms }, times: 1 });
      await produceRecords(kafka.bootstrapServers, topic, [{
        key: null,
        value: JSON.stringify({ number: "1" }),
      }]);
      await waitFor(() => createInFlight(sim), 30_000, "the sink's create reached the instance (held there)");
      daemon.process.kill("SIGTERM");
      await waitFor(
        () => daemon.output().includes("received SIGTERM"),
        10_000,
        "the graceful shutdown began",
      );
    };
    try {
      await t.step("a create sent before the signal finishes and is committed", async () => {
        const daemon = await start(30_000);
        try {
          await createHeld(daemon, 3_000);
          // SIGCONT: wait for the exit without a second SIGTERM (which would exit at once).
          const { code } = await daemon.stop("SIGCONT");
          assertEquals(code, 0, daemon.output().slice(-3000));
          assertStringIncludes(daemon.output(), "tablesync stopped");
          assertEquals(await rows(sim), 2, "the held create was applied (next to the seeded row)");
          // Committed by the graceful stop: a restart does not redeliver the record (and create the row again).
          assertEquals(await kafka.groupOffsets("connect-held", topic), { [`${topic}/0`]: 1 });
        } finally {
          await daemon.stop("SIGKILL");
        }
      });

      await t.step(
        "a write still held when the stop gives up is abandoned; the batch's written records are committed",
        async () => {
          const daemon = await start(6_000);
          try {
            const [existing] = sim.table("incident").sysIds();
            // One batch: an update the instance answers, then a create it holds past the stop's 60 % (3.6 s):
            // abandoned, the create stays uncommitted, but the update before it must not be redelivered.
            sim.faults.add({
              method: "POST",
              table: "incident",
              fault: { kind: "latency", ms: 20_000 },
              times: 1,
            });
            await produceRecords(kafka.bootstrapServers, topic, [
              {
                key: existing,
                value: JSON.stringify({ short_description: "updated in the batch" }),
                partition: 0,
              },
              { key: null, value: JSON.stringify({ number: "2" }), partition: 0 },
            ]);
            await waitFor(
              () => createInFlight(sim),
              30_000,
              "the batch's create reached the instance (held there)",
            );
            await waitFor(
              () => sim.table("incident").get(existing)?.short_description === "updated in the batch",
              30_000,
              "the batch's update was applied",
            );
            const { code } = await daemon.stop("SIGTERM");
            assertEquals(code, 0, daemon.output().slice(-3000));
            assertEquals(await kafka.groupOffsets("connect-held", topic), { [`${topic}/0`]: 2 });
          } finally {
            await daemon.stop("SIGKILL");
          }
        },
      );

      await t.step("a second signal during the graceful shutdown exits at once with status 1", async () => {
        const daemon = await start(120_000);
        try {
          await createHeld(daemon, 15_000);
          const { code } = await daemon.stop("SIGTERM");
          assertEquals(code, 1, daemon.output().slice(-2000));
          assertStringIncludes(daemon.output(), "second signal: exiting at once");
          assert(!daemon.output().includes("tablesync stopped"), "the graceful shutdown did not finish");
        } finally {
          await daemon.stop("SIGKILL");
        }
      });
    } finally {
      await sim.stop();
    }
  },
});
