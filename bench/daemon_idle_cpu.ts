/**
 * Idle CPU of the whole daemon: one source polling a quiet table every 5 s and one sink waiting on an empty topic,
 * measured over a window once both are caught up. Prints % of one core; never asserted.
 *
 *   deno run -A bench/daemon_idle_cpu.ts [--seconds 20]
 */
import { startSimulator } from "../src/sim/mod.ts";
import { arg, cpuSeconds, startBrokerProcess, startDaemonProcess } from "./support/processes.ts";

const seconds = arg("seconds", 20);
const sim = await startSimulator({ port: 0, seed: { incident: 100 }, users: ["admin:bench-pass"] });
const broker = await startBrokerProcess("idle.incident:4,idle.sink:4");
const connection = { "svc.url": sim.url, "svc.auth.username": "admin", "svc.auth.password": "bench-pass" };
const daemon = await startDaemonProcess({
  worker: { "bootstrap.servers": broker.bootstrap, "listeners": "http://127.0.0.1:0" },
  connectors: [
    {
      name: "idle-source",
      config: {
        "connector.class": "TableSourceConnector",
        ...connection,
        "svc.tables": "incident",
        "svc.table.incident.name": "incident",
        "svc.table.incident.topic": "idle.incident",
      },
    },
    {
      name: "idle-sink",
      config: {
        "connector.class": "TableSinkConnector",
        ...connection,
        "topics": "idle.sink",
        "svc.sink.table": "incident",
      },
    },
  ],
});
// Let the backfill finish and the sink join its group.
await new Promise((r) => setTimeout(r, 10_000));
const cpu0 = cpuSeconds(daemon.pid);
const started = performance.now();
await new Promise((r) => setTimeout(r, seconds * 1000));
const used = cpuSeconds(daemon.pid) - cpu0;
const wall = (performance.now() - started) / 1000;
console.log(
  `daemon idle (1 source polling every 5 s, 1 sink waiting): ${
    (used / wall * 100).toFixed(2)
  } % of one core over ${wall.toFixed(0)} s`,
);
await daemon.stop();
await broker.stop();
await sim.stop();
