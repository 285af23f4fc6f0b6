/**
 * Backfill rate of one table read with the cursor alone and in sys id ranges (`svc.source.backfill.parallelism`),
 * against a simulator that answers every request after `--latency-ms` (a real instance answers one page per
 * 0.2-2 s, so what decides a backfill is how many pages are in flight). One source task runs in process; each
 * run is timed from start until every row was polled, and prints rows/s and the most requests the simulator had
 * in flight (never above `--permits`, the shared `svc.http.max.concurrent.requests`).
 *
 *   deno run -A bench/parallel_backfill.ts [--rows 40000] [--batch 1000] [--latency-ms 400] [--permits 8]
 *
 * Figures are printed, never asserted.
 */
import pino from "pino";
import { analyzeConnector } from "../src/config/connector_config.ts";
import { startSimulator } from "../src/sim/mod.ts";
import { TableSourceTask } from "../src/source/task.ts";
import { arg, fmt } from "./support/processes.ts";
import { BENCH_USER, benchSourceConfig, benchSourceContext } from "./support/source_task.ts";

const rows = arg("rows", 40_000);
const batch = arg("batch", 1000);
const latencyMs = arg("latency-ms", 400);
const permits = arg("permits", 8);
const RANGES = [1, 4] as const;

/** Backfills the table with `ranges`; returns rows/s and the most requests in flight. */
async function backfill(ranges: number): Promise<{ rate: number; seconds: number; maxInFlight: number }> {
  const sim = await startSimulator({
    seed: { incident: rows },
    users: [BENCH_USER],
    clock: { mode: "frozen", at: "2030-01-01 00:00:00" },
    latencyMs,
    journalLimit: 10,
  });
  const abort = new AbortController();
  const context = benchSourceContext(pino({ level: "silent" }), abort.signal);
  const raw = benchSourceConfig(sim.url, {
    "svc.source.batch.size": String(batch),
    "svc.source.backfill.parallelism": String(ranges),
    "svc.http.max.concurrent.requests": String(permits),
    "svc.source.poll.interval.ms": "1000",
    "svc.source.startup.probe": "false",
  });
  try {
    const task = new TableSourceTask({ pollWaitMs: 50 });
    sim.counters.reset();
    const started = performance.now();
    await task.start(raw, analyzeConnector(raw, { worker: {} }).values, context);
    let records = 0;
    while (records < rows) records += (await task.poll()).length;
    const seconds = (performance.now() - started) / 1000;
    abort.abort();
    await task.stop();
    return { rate: rows / seconds, seconds, maxInFlight: sim.counters.maxInFlight };
  } finally {
    await sim.stop();
  }
}

console.log(
  `${fmt(rows)} incident rows, pages of ${fmt(batch)}, ${latencyMs} ms latency, ${permits} permits`,
);
const results = [];
for (const ranges of RANGES) results.push({ ranges, ...await backfill(ranges) });
for (const r of results) {
  console.log(
    `parallelism ${r.ranges}: ${fmt(r.rate).padStart(7)} rows/s (${r.seconds.toFixed(1)} s, ` +
      `max ${r.maxInFlight} requests in flight)`,
  );
}
console.log(`speed-up with ${RANGES[1]} ranges: ${(results[1].rate / results[0].rate).toFixed(2)}x`);
