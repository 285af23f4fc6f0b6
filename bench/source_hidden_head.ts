/**
 * A table whose head is hidden by access control (tests/source/hidden_head_fixture.ts: rows over two years, the
 * first `--head` hidden and every tenth of the rest), read by one source task in process against an in-process
 * simulator that answers each request after `--latency-ms`. Prints the requests of the backfill (the startup
 * probe included) against the raw page floor, the requests and the time before the first record, and the time
 * until every readable row was emitted.
 *
 *   deno run -A bench/source_hidden_head.ts [--rows 4000] [--head 1200] [--batch 100] [--latency-ms 100]
 *
 * Figures are printed, never asserted.
 */
import pino from "pino";
import { analyzeConnector } from "../src/config/connector_config.ts";
import { startSimulator } from "../src/sim/mod.ts";
import { TableSourceTask } from "../src/source/task.ts";
import { seedHiddenHead } from "../tests/source/hidden_head_fixture.ts";
import { arg, fmt } from "./support/processes.ts";
import { BENCH_USER, benchSourceConfig, benchSourceContext } from "./support/source_task.ts";

const rows = arg("rows", 4000);
const head = arg("head", 1200);
const batch = arg("batch", 100);
const latencyMs = arg("latency-ms", 100);

const sim = await startSimulator({ users: [BENCH_USER], latencyMs });
const table = seedHiddenHead(sim, "incident", { rows, head, every: 10 });
const abort = new AbortController();
const context = benchSourceContext(pino({ level: "warn", base: undefined }), abort.signal);
const raw = benchSourceConfig(sim.url, {
  "svc.source.batch.size": String(batch),
  "svc.source.poll.interval.ms": "600000",
});
const started = performance.now();
const task = new TableSourceTask({ pollWaitMs: 50 });
await task.start(raw, analyzeConnector(raw, { worker: {} }).values, context);
let records = 0;
let first: { ms: number; requests: number } | null = null;
while (records < table.readable.length) {
  records += (await task.poll()).length;
  if (records > 0 && first === null) {
    first = { ms: performance.now() - started, requests: sim.counters.requests };
  }
}
const caughtUpMs = performance.now() - started;
const requests = sim.counters.requests;
abort.abort();
await task.stop();
await sim.stop();
console.log(
  `${fmt(rows)} rows, first ${
    fmt(head)
  } hidden (+ every 10th), batch ${batch}, ${latencyMs} ms per request: ` +
    `${requests} requests until every readable row was emitted (raw page floor ${
      Math.ceil(rows / batch)
    }), ` +
    `in ${(caughtUpMs / 1000).toFixed(1)} s; first record after ${first!.requests} requests, ` +
    `${(first!.ms / 1000).toFixed(1)} s`,
);
