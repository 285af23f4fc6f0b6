/**
 * Sink throughput through the daemon against the simulator at a fixed latency per request, compared in the same
 * run with the ceiling that latency allows: permits / latency (8 permits at 20 ms = 400 writes/s).
 *
 *   deno run -A bench/sink_e2e.ts [--records 4000] [--latency-ms 20] [--permits 8]
 *
 * Records are PATCHes of existing rows keyed by sys_id, spread over many keys. The simulator runs in this
 * process so its journal gives the exact time of the first and last write (the consumer group's first join
 * is not part of the figure). Figures are printed, never asserted.
 */
import { startSimulator } from "../src/sim/mod.ts";
import { createKafka, kafkaOptionsFromProperties } from "../src/kafka/mod.ts";
import {
  arg,
  cpuSeconds,
  fmt,
  peakRss,
  startBrokerProcess,
  startDaemonProcess,
} from "./support/processes.ts";

const records = arg("records", 4000);
const latencyMs = arg("latency-ms", 20);
const permits = arg("permits", 8);

const sim = await startSimulator({
  port: 0,
  seed: { incident: Math.min(records, 5000) },
  users: ["admin:bench-pass"],
});
sim.faults.add({ fault: { kind: "latency", ms: latencyMs }, method: "PATCH" });
const broker = await startBrokerProcess("bench.sink:8");
const ids = sim.table("incident").sysIds();

const options = await kafkaOptionsFromProperties({ "bootstrap.servers": broker.bootstrap });
const producer = await createKafka(options.connection).producer({ acks: -1 });
const encoder = new TextEncoder();
for (let start = 0; start < records; start += 1000) {
  const batch = [];
  for (let i = start; i < Math.min(records, start + 1000); i++) {
    batch.push({
      topic: "bench.sink",
      key: encoder.encode(ids[i % ids.length]),
      value: encoder.encode(
        JSON.stringify({ short_description: `bench write ${i}`, priority: String(1 + (i % 5)) }),
      ),
    });
  }
  await producer.send(batch);
}
await producer.close();
console.log(
  `${fmt(records)} records on bench.sink; simulator latency ${latencyMs} ms per PATCH, ${permits} permits`,
);

const daemon = await startDaemonProcess({
  worker: { "bootstrap.servers": broker.bootstrap, "listeners": "http://127.0.0.1:0", "log.level": "info" },
  connectors: [{
    name: "bench-sink",
    config: {
      "connector.class": "TableSinkConnector",
      "topics": "bench.sink",
      "svc.url": sim.url,
      "svc.auth.username": "admin",
      "svc.auth.password": "bench-pass",
      "svc.sink.table": "incident",
      "svc.http.max.concurrent.requests": permits,
      "svc.sink.max.in.flight": permits,
      "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    },
  }],
});
const cpu0 = cpuSeconds(daemon.pid);
const deadline = Date.now() + 600_000;
let writes = 0;
while (writes < records) {
  await new Promise((r) => setTimeout(r, 200));
  writes = sim.journal.find({ method: "PATCH" }).filter((e) => e.status === 200).length;
  if (Date.now() > deadline) throw new Error(`only ${writes} writes after 10 minutes`);
}
const patches = sim.journal.find({ method: "PATCH" });
const first = Math.min(...patches.map((e) => e.startedAt));
const last = Math.max(...patches.map((e) => e.endedAt ?? e.startedAt));
const seconds = (last - first) / 1000;
const rate = writes / seconds;
const ceiling = permits / (latencyMs / 1000);
console.log(
  `sink writes            ${fmt(rate).padStart(6)} writes/s (${fmt(writes)} writes in ${
    seconds.toFixed(2)
  } s)`,
);
console.log(`ceiling permits/latency ${fmt(ceiling).padStart(5)} writes/s`);
console.log(
  `ratio ${(rate / ceiling).toFixed(2)}; peak in flight at the simulator ${sim.counters.maxInFlight}`,
);
console.log(
  `daemon CPU ${(cpuSeconds(daemon.pid) - cpu0).toFixed(2)} s; peak memory ${
    fmt(peakRss(daemon.pid) / 1048576)
  } MB`,
);
await daemon.stop();
await broker.stop();
await sim.stop();
