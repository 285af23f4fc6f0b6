/**
 * A sink while its broker is killed (kill -9) and started again on the same data and port 30 s later: the
 * consumer reconnects and rejoins its group by itself, the task never FAILED, and every record reaches the
 * instance at its last version (offsets are committed only past records written, so what was in flight at the
 * kill is delivered again, never skipped). One warn line or so about the outage, no stack per reconnect, memory
 * bounded. Its own broker and simulator; takes about a minute: the outage itself is 30 s.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { killBroker, logFigures, rssMiB } from "../support/broker_faults.ts";
import { launchKafkaBroker, restartKafkaBroker, stopKafkaBroker } from "../support/kafka_broker_process.ts";
import { produceRecords } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sinkConnectorConfig } from "../support/sink_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { Kafka, logLevel } from "kafkajs";

const PASSWORD = "pw-Sink-Fault-Wren-4";
const TOPIC = "fault.sink";
const KEYS = Array.from({ length: 600 }, (_, i) => i.toString(16).padStart(32, "0"));
const OUTAGE_MS = 30_000;
const MAX_LOG_LINES = 8;

Deno.test({
  name:
    "sink: broker kill -9, restarted on its data and port after 30 s: the consumer rejoins, every record lands",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const sim = await startSimulator({ port: 0, seed: { incident: 0 }, users: [`admin:${PASSWORD}`] });
    // Slow writes keep records in flight when the broker goes.
    sim.faults.add({ fault: { kind: "latency", ms: 20 } });
    let broker = await launchKafkaBroker({ restartable: true });
    const admin = new Kafka({ brokers: [broker.bootstrapServers], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 4 }], waitForLeaders: true });
    await admin.disconnect();
    const produce = (version: number) =>
      produceRecords(
        broker.bootstrapServers,
        TOPIC,
        KEYS.map((k) => ({ key: k, value: JSON.stringify({ short_description: `${k} v${version}` }) })),
      );
    await produce(1);
    const table = sim.table("incident");
    const daemon = await startDaemonProcess({
      worker: { "bootstrap.servers": broker.bootstrapServers },
      connectors: [{
        name: "fault",
        config: sinkConnectorConfig(sim.url, PASSWORD, {
          topics: TOPIC,
          "svc.sink.not.found.behavior": "create",
          "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        }),
      }],
    });
    try {
      await waitFor(() => table.count > 50, 60_000, "sink writes under way");
      const rssBefore = rssMiB(daemon.process.pid);
      const logMark = daemon.output().split("\n").length;
      const states: string[] = [];
      let peakRss = rssBefore;
      let over = false;
      const watching = (async () => {
        while (!over) {
          peakRss = Math.max(peakRss, rssMiB(daemon.process.pid));
          const task = (await daemon.request("GET", "/connectors/fault/status").catch(() => null))?.body
            ?.tasks?.[0];
          if (task && states.at(-1) !== task.state) states.push(task.state);
          await new Promise((r) => setTimeout(r, 1000));
        }
      })();
      await killBroker(broker);
      const atKill = table.count;
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
      broker = await restartKafkaBroker(broker);
      const cleared = performance.now();
      await produce(2);
      await waitFor(
        () => KEYS.some((k) => table.get(k)?.short_description === `${k} v2`),
        120_000,
        "a first write after the broker came back",
      ).catch(() => {});
      const secondsToFirstWrite = Math.round((performance.now() - cleared) / 100) / 10;
      await waitFor(
        () => KEYS.every((k) => table.get(k)?.short_description === `${k} v2`),
        120_000,
        "every key at its last version",
      ).catch(() => {});
      over = true;
      await watching;
      const status = await daemon.request("GET", "/connectors/fault/status");
      const lost = KEYS.filter((k) => table.get(k)?.short_description !== `${k} v2`).length;
      const figures = {
        fault: "broker kill -9, restarted after 30 s",
        mode: "sink",
        variant: "sink",
        rowsLost: lost,
        rowsAtKill: atKill,
        secondsToFirstRecord: secondsToFirstWrite,
        taskStates: states,
        rssBeforeMiB: rssBefore,
        peakRssDuringMiB: peakRss,
        ...logFigures(daemon.output().split("\n").slice(logMark)),
        finalState: status.body?.tasks?.[0]?.state,
      };
      console.log(`FAULT-FIGURES ${JSON.stringify(figures)}`);
      const loud = daemon.output().split("\n").slice(logMark).filter((l) => /"level":"(warn|error)"/.test(l));
      const what = `${JSON.stringify(figures)}; warn and error lines:\n${loud.join("\n")}`;
      assertEquals(lost, 0, `records not written at their last version; ${what}`);
      assertEquals(table.count, KEYS.length, `rows created twice; ${what}`);
      assert(!states.includes("FAILED"), `the task FAILED during the fault; ${what}`);
      assertEquals(figures.finalState, "RUNNING", what);
      assertEquals(figures.stackTraces, 0, `stack traces in the log; ${what}`);
      assert(figures.logLines <= MAX_LOG_LINES, `too many log lines about the fault; ${what}`);
      assert(peakRss < 2 * rssBefore, `memory grew during the fault; ${what}`);
    } finally {
      await daemon.stop("SIGTERM");
      await sim.stop();
      await stopKafkaBroker(broker);
    }
  },
});
