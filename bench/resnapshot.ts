/**
 * A re-snapshot's speed in sys id ranges: one table of `--rows` rows streamed by two source connectors of one
 * daemon (Kafka broker and daemon in their own processes, the simulator in this one), one with
 * `svc.source.backfill.parallelism` 1, the other 4. Once both stream, every instance request is answered after
 * `--latency-ms` (a real instance answers one page per 0.2-2 s), and each connector in turn is asked for a
 * re-snapshot over REST; each is timed from the request until its topic holds every row once more (its end
 * offsets, read every 50 ms), beside the time to its first record (the fixed cost before the ranges' pages) and
 * the snapshot's own start and end as `GET /tables` reports them, and the CPU seconds the daemon and this
 * process (the simulator) spent meanwhile. Figures are printed, never asserted.
 *
 *   deno run -A bench/resnapshot.ts [--rows 40000] [--batch 1000] [--latency-ms 400] [--permits 8]
 */
import { createKafka, kafkaOptionsFromProperties } from "../src/kafka/mod.ts";
import { sleep } from "../tests/support/wait.ts";
import { startSimulator } from "../src/sim/mod.ts";
import {
  arg,
  cpuSeconds,
  fmt,
  ownCpuSeconds,
  startBrokerProcess,
  startDaemonProcess,
} from "./support/processes.ts";

const rows = arg("rows", 40_000);
const batch = arg("batch", 1000);
const latencyMs = arg("latency-ms", 400);
const permits = arg("permits", 8);
const RANGES = [1, 4] as const;

const sim = await startSimulator({
  port: 0,
  seed: { incident: rows },
  users: ["admin:bench-pass"],
  // The journal of requests is not needed here: kept short, as in bench/parallel_backfill.ts.
  journalLimit: 10,
});
const topicOf = (ranges: number) => `snap${ranges}.incident`;
const broker = await startBrokerProcess(RANGES.map((n) => `${topicOf(n)}:4`).join(","));
const daemon = await startDaemonProcess({
  worker: { "bootstrap.servers": broker.bootstrap, "listeners": "http://127.0.0.1:0" },
  connectors: RANGES.map((n) => ({
    name: `ranges${n}`,
    config: {
      "connector.class": "TableSourceConnector",
      "svc.url": sim.url,
      "svc.auth.username": "admin",
      "svc.auth.password": "bench-pass",
      "svc.tables": "incident",
      "svc.table.incident.name": "incident",
      "svc.table.incident.topic": topicOf(n),
      "svc.table.incident.fields": "sys_id,sys_updated_on,sys_mod_count,short_description,state,priority",
      "svc.source.batch.size": batch,
      "svc.source.backfill.parallelism": n,
      "svc.http.max.concurrent.requests": permits,
      "svc.source.poll.interval.ms": 1000,
    },
  })),
});
const admin = await createKafka(
  (await kafkaOptionsFromProperties({ "bootstrap.servers": broker.bootstrap })).connection,
).admin();

type Table = {
  rows_emitted: number;
  phase: string;
  snapshot?: { id: string; state: string; started_at: string; ended_at: string | null; rows_sent: number };
};
const table = async (connector: string): Promise<Table | undefined> =>
  (await (await fetch(`${daemon.url}/connectors/${connector}/tables`)).json())[0];
const endOffsets = async (topic: string) =>
  (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + p.high, 0);

for (const n of RANGES) {
  while (
    ((await table(`ranges${n}`))?.rows_emitted ?? 0) < rows ||
    (await table(`ranges${n}`))?.phase !== "streaming"
  ) {
    await sleep(500);
  }
}
sim.faults.add({ fault: { kind: "latency", ms: latencyMs } });
console.log(
  `${fmt(rows)} incident rows streamed; re-snapshot in pages of ${
    fmt(batch)
  }, ${latencyMs} ms per request, ` +
    `${permits} permits`,
);

/** The snapshot `id` of `connector` once it ended. */
async function ended(connector: string, id: string): Promise<NonNullable<Table["snapshot"]>> {
  for (;;) {
    const s = (await table(connector))?.snapshot;
    if (s !== undefined && s.id === id && s.ended_at !== null) return s;
    await sleep(200);
  }
}

/** Asks connector `ranges<n>` for a re-snapshot; seconds from the request to its first and its last record. */
async function resnapshot(n: number) {
  const connector = `ranges${n}`, topic = topicOf(n);
  const before = await endOffsets(topic);
  const cpu0 = cpuSeconds(daemon.pid), own0 = ownCpuSeconds();
  const started = performance.now();
  const res = await fetch(`${daemon.url}/connectors/${connector}/tables/incident/snapshot`, {
    method: "POST",
  });
  const { snapshot: id } = await res.json();
  if (res.status !== 202) throw new Error(`snapshot refused: ${res.status} ${id}`);
  let first: number | null = null;
  for (;;) {
    const added = (await endOffsets(topic)) - before;
    if (added > 0) first ??= performance.now();
    if (added >= rows) break;
    await sleep(50);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(daemon.pid) - cpu0, simCpu = ownCpuSeconds() - own0;
  const s = await ended(connector, id);
  return {
    n,
    seconds,
    first: (first! - started) / 1000,
    task: (Date.parse(s.ended_at!) - Date.parse(s.started_at)) / 1000,
    sent: s.rows_sent,
    cpu,
    simCpu,
    state: s.state,
  };
}

const results = [];
for (const n of RANGES) results.push(await resnapshot(n));
for (const r of results) {
  console.log(
    `${r.n} range${r.n === 1 ? " " : "s"}: ${r.seconds.toFixed(1)} s from the request to the last record ` +
      `(${fmt(rows / r.seconds)} rows/s; first record after ${r.first.toFixed(1)} s; the task's snapshot ` +
      `${r.task.toFixed(1)} s, ${r.state}, ${fmt(r.sent)} records sent; daemon CPU ${r.cpu.toFixed(1)} s, ` +
      `simulator and this process ${r.simCpu.toFixed(1)} s)`,
  );
}
console.log(`speed-up with ${RANGES[1]} ranges: ${(results[0].seconds / results[1].seconds).toFixed(2)}x`);
await admin.close();
await daemon.stop();
await broker.stop();
await sim.stop();
