/**
 * Many tables under a request budget that cannot poll them all at their poll interval: `--tables` aliases (each a
 * filter on `incident`), a simulator rate-limit rule of `--rule-per-hour` requests, and `--changes-per-second`
 * rows written into random tables (half of them into the `--hot` first tables, the rest spread over all). Time
 * is compressed `--compress` times: the poll interval, the ceiling, the rule's window and the change rate are
 * scaled, and every figure is printed in real-time terms (per hour, seconds).
 *
 * Two runs in one invocation, each against a fresh simulator: "today" (pacing within the rule, every table at
 * its poll interval: `svc.source.poll.interval.max.ms` = the poll interval) and "scheduler" (the ceiling
 * `--max-seconds`). Printed side by side: requests spent per hour, requests answered 429, and the staleness of
 * changed rows (row written → record returned by the source task; p50, p95, max), plus rows not delivered by
 * the end of the run.
 *
 *   deno run -A bench/instance_budget.ts [--tables 200] [--hot 10] [--changes-per-second 1] [--poll-seconds 5]
 *     [--max-seconds 90] [--rule-per-hour 14400] [--compress 30] [--windows 1] [--poll-batch auto]
 *
 * Each run is measured over `--windows` whole windows of the rule (an hour each in real time; the run first
 * waits for a window to begin). Figures are printed, never asserted.
 */
import pino from "pino";
import { analyzeConnector } from "../src/config/connector_config.ts";
import { startSimulator } from "../src/sim/mod.ts";
import { TableSourceTask } from "../src/source/task.ts";
import { arg, fmt } from "./support/processes.ts";
import { settlesWithin } from "../src/common/delay.ts";
import { BENCH_USER, benchSourceConfig, benchSourceContext } from "./support/source_task.ts";

const tables = arg("tables", 200);
const hot = arg("hot", 10);
const changesPerSecond = arg("changes-per-second", 1);
const pollSeconds = arg("poll-seconds", 5);
const maxSeconds = arg("max-seconds", 90);
const rulePerHour = arg("rule-per-hour", 14_400);
const compress = arg("compress", 30);
const windows = arg("windows", 1);
/** `--poll-batch auto|true|false`: svc.source.poll.batch of the task (idle polls as Batch API items). */
const pollBatchAt = Deno.args.indexOf("--poll-batch");
const pollBatch = pollBatchAt >= 0 ? Deno.args[pollBatchAt + 1] : "auto";

const floorMs = Math.max(1, Math.round((pollSeconds * 1000) / compress));
const maxMs = Math.round((maxSeconds * 1000) / compress);
const windowSeconds = Math.max(1, Math.round(3600 / compress));
const seconds = windows * windowSeconds;
const changeEveryMs = 1000 / (changesPerSecond * compress);
const aliases = Array.from({ length: tables }, (_, i) => `t${i}`);

interface RunFigures {
  requestsPerHour: number;
  throttled: number;
  staleness: number[];
  undelivered: number;
}

/** A seeded generator, so both runs see the same changes in the same tables. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function run(scheduler: boolean): Promise<RunFigures> {
  const sim = await startSimulator({
    users: [BENCH_USER],
    journalLimit: 10,
    rateLimit: { requests: rulePerHour, windowSeconds },
  });
  const incidents = sim.table("incident");
  for (const alias of aliases) incidents.insert({ short_description: alias });
  const abort = new AbortController();
  const raw = benchSourceConfig(sim.url, {
    "svc.tables": aliases.join(","),
    ...Object.fromEntries(aliases.flatMap((a) => [
      [`svc.table.${a}.name`, "incident"],
      [`svc.table.${a}.topic`, "bench"],
      [`svc.table.${a}.query`, `short_description=${a}`],
    ])),
    "svc.source.poll.interval.ms": String(floorMs),
    "svc.source.poll.interval.max.ms": String(scheduler ? maxMs : floorMs),
    "svc.source.startup.probe": "false",
    "svc.retry.max.attempts": "20",
    "svc.source.poll.batch": pollBatch,
  });
  const task = new TableSourceTask({ pollWaitMs: 20 });
  const writtenAt = new Map<string, number>();
  const staleness: number[] = [];
  try {
    await task.start(
      raw,
      analyzeConnector(raw, { worker: {} }).values,
      benchSourceContext(pino({ level: "silent" }), abort.signal),
    );
    let initial = 0;
    while (initial < tables) initial += (await task.poll()).length;
    // Measured over whole windows of the rule (aligned to the instance clock): requests spent are then the
    // rule's to compare, not what an earlier, partly spent window left.
    const windowMs = windowSeconds * 1000;
    await new Promise((r) => setTimeout(r, windowMs - (Date.now() % windowMs) + 50));
    sim.counters.reset();
    const rnd = random(7);
    const started = performance.now();
    let writing = true;
    const writer = (async () => {
      let next = started;
      while (writing) {
        const alias = rnd() < 0.5 ? aliases[Math.floor(rnd() * hot)] : aliases[Math.floor(rnd() * tables)];
        const row = incidents.insert({ short_description: alias });
        writtenAt.set(row.sys_id, performance.now());
        next += changeEveryMs;
        await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
      }
    })();
    const take = async () => {
      for (const record of await task.poll()) {
        const at = writtenAt.get(String(record.key));
        if (at === undefined) continue;
        staleness.push(((performance.now() - at) * compress) / 1000);
        writtenAt.delete(String(record.key));
      }
    };
    while (performance.now() - started < seconds * 1000) await take();
    writing = false;
    await writer;
    const elapsed = (performance.now() - started) / 1000;
    const statuses = sim.counters.statuses();
    const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
    // Rows written near the end still arrive within the ceiling (or the pacer's round): wait for them.
    const drainUntil = performance.now() + Math.max(maxMs, floorMs) * 3 + 5000;
    while (writtenAt.size > 0 && performance.now() < drainUntil) await take();
    return {
      requestsPerHour: (requests / (elapsed * compress)) * 3600,
      throttled: statuses[429] ?? 0,
      staleness,
      undelivered: writtenAt.size,
    };
  } finally {
    abort.abort();
    const stopped = await settlesWithin(task.stop(), 5000);
    if (!stopped) console.error("the source task did not stop within 5 s (figures unaffected)");
    await sim.stop();
  }
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const today = await run(false);
const scheduled = await run(true);
console.log(
  `${tables} tables (${hot} hot), ${changesPerSecond} change(s)/s, poll interval ${pollSeconds} s ` +
    `(would need ${fmt((tables * 3600) / pollSeconds)} requests/h), rule ${fmt(rulePerHour)} requests/h, ` +
    `ceiling ${maxSeconds} s; time compressed ${compress}×, ${windows} window(s) of the rule per run (${seconds} s, ${
      fmt((seconds * compress) / 60)
    } min of real time)`,
);
const row = (name: string, f: (r: RunFigures) => string) =>
  console.log(`${name.padEnd(28)}${f(today).padStart(14)}${f(scheduled).padStart(14)}`);
console.log(`${"".padEnd(28)}${"today".padStart(14)}${"scheduler".padStart(14)}`);
row("requests per hour", (r) => fmt(r.requestsPerHour));
row("  of the rule", (r) => `${((r.requestsPerHour / rulePerHour) * 100).toFixed(0)} %`);
row("answered 429", (r) => String(r.throttled));
row("changes delivered", (r) => String(r.staleness.length));
row("not delivered at the end", (r) => String(r.undelivered));
row("staleness p50 (s)", (r) => quantile(r.staleness, 0.5).toFixed(1));
row("staleness p95 (s)", (r) => quantile(r.staleness, 0.95).toFixed(1));
row("staleness p99 (s)", (r) => quantile(r.staleness, 0.99).toFixed(1));
row("staleness max (s)", (r) => quantile(r.staleness, 1).toFixed(1));
Deno.exit(0);
