/**
 * Sink throughput through the daemon against the simulator at a fixed latency per request (per round trip),
 * compared in the same run with the ceiling that latency allows for one request per record: permits / latency
 * (8 permits at 20 ms = 400 writes/s); then the same records through the Batch API (svc.sink.batch.enabled).
 *
 *   deno run -A bench/sink_e2e.ts [--records 4000] [--latency-ms 20] [--permits 8] [--batch-records 50]
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
const batchRecords = arg("batch-records", 50);

const sim = await startSimulator({
  port: 0,
  seed: { incident: Math.min(records, 5000) },
  users: ["admin:bench-pass"],
  latencyMs,
});
const broker = await startBrokerProcess("bench.sink:8,bench.sink.batch:8");
const ids = sim.table("incident").sysIds();
const encoder = new TextEncoder();
const ceiling = permits / (latencyMs / 1000);
console.log(
  `${fmt(records)} records per run; simulator latency ${latencyMs} ms per request, ${permits} permits`,
);

const single = await runSink("bench.sink", {});
console.log(`ceiling permits/latency ${fmt(ceiling).padStart(5)} writes/s`);
console.log(`ratio ${(single / ceiling).toFixed(2)}  (target >= 0.90)`);
const batched = await runSink("bench.sink.batch", {
  "svc.sink.batch.enabled": "true",
  "svc.sink.batch.max.records": batchRecords,
});
console.log(
  `Batch API (${batchRecords} per request) / one request per record: ${
    (batched / single).toFixed(2)
  }x  (target >= 3)`,
);
await broker.stop();
await sim.stop();

/** Writes `records` PATCHes through a sink daemon reading `topic`; prints and returns writes per second. */
async function runSink(topic: string, extra: Record<string, unknown>): Promise<number> {
  const options = await kafkaOptionsFromProperties({ "bootstrap.servers": broker.bootstrap });
  const producer = await createKafka(options.connection).producer({ acks: -1 });
  for (let start = 0; start < records; start += 1000) {
    const batch = [];
    for (let i = start; i < Math.min(records, start + 1000); i++) {
      batch.push({
        topic,
        key: encoder.encode(ids[i % ids.length]),
        value: encoder.encode(
          JSON.stringify({ short_description: `${topic} write ${i}`, priority: String(1 + (i % 5)) }),
        ),
      });
    }
    await producer.send(batch);
  }
  await producer.close();
  const before = sim.journal.find({ method: "PATCH" }).length;
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": broker.bootstrap, "listeners": "http://127.0.0.1:0", "log.level": "info" },
    connectors: [{
      name: `sink-${topic}`,
      config: {
        "connector.class": "TableSinkConnector",
        "topics": topic,
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": "bench-pass",
        "svc.sink.table": "incident",
        "svc.http.max.concurrent.requests": permits,
        "svc.sink.max.in.flight": permits,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        ...extra,
      },
    }],
  });
  const cpu0 = cpuSeconds(daemon.pid);
  const deadline = Date.now() + 600_000;
  let patches = sim.journal.find({ method: "PATCH" }).slice(before);
  while (patches.filter((e) => e.status === 200).length < records) {
    await new Promise((r) => setTimeout(r, 200));
    patches = sim.journal.find({ method: "PATCH" }).slice(before);
    if (Date.now() > deadline) throw new Error(`only ${patches.length} writes after 10 minutes`);
  }
  const writes = patches.filter((e) => e.status === 200).length;
  const first = Math.min(...patches.map((e) => e.startedAt));
  const last = Math.max(...patches.map((e) => e.endedAt ?? e.startedAt));
  const seconds = (last - first) / 1000;
  const rate = writes / seconds;
  const mode = extra["svc.sink.batch.enabled"] ? `Batch API` : `one request per record`;
  console.log(
    `\nsink writes, ${mode}: ${fmt(rate)} writes/s (${fmt(writes)} writes in ${seconds.toFixed(2)} s); ` +
      `peak in flight at the simulator ${sim.counters.maxInFlight}`,
  );
  console.log(
    `daemon CPU ${(cpuSeconds(daemon.pid) - cpu0).toFixed(2)} s; peak memory ${
      fmt(peakRss(daemon.pid) / 1048576)
    } MB`,
  );
  await daemon.stop();
  return rate;
}
