/**
 * Requests per sweep of the source's paging when access control hides rows after the limit (the instance's
 * order, reproduced by the simulator's `acl_hide` fault). One source task runs in process against an in-process
 * simulator; for each scenario it prints the requests of the first sweep (the backfill) and of a later, quiet
 * sweep, how many of them asked for a count, the windows split, and the wall time of the backfill.
 *
 *   deno run -A bench/source_paging.ts [--rows 20000] [--batch 1000]
 *
 * Figures are printed, never asserted.
 */
import pino from "pino";
import { analyzeConnector } from "../src/config/connector_config.ts";
import { startSimulator } from "../src/sim/mod.ts";
import { TableSourceTask } from "../src/source/task.ts";
import { arg, fmt } from "./support/processes.ts";
import { BENCH_USER, benchSourceConfig, benchSourceContext } from "./support/source_task.ts";

const rows = arg("rows", 20_000);
const batch = arg("batch", 1000);

interface SweepLine {
  msg: string;
  pages: number;
  counted: number;
  splits: number;
}

/** Hidden sys ids for a scenario, given every sys id in cursor order. */
const SCENARIOS: Record<string, (ordered: string[]) => { sysIds?: string[]; percent?: number }> = {
  "nothing hidden": () => ({}),
  "5 % scattered": () => ({ percent: 5 }),
  "50 % scattered": () => ({ percent: 50 }),
  "runs of 3×batch at start, middle, end": (ordered) => {
    const run = 3 * batch, mid = Math.floor(ordered.length / 2);
    return {
      sysIds: [...ordered.slice(0, run), ...ordered.slice(mid, mid + run), ...ordered.slice(-run)],
    };
  },
};

console.log(`${fmt(rows)} incident rows, batch ${fmt(batch)}`);
for (const [name, hide] of Object.entries(SCENARIOS)) {
  const sim = await startSimulator({
    seed: { incident: rows },
    users: [BENCH_USER],
    clock: { mode: "frozen", at: "2030-01-01 00:00:00" },
    journalLimit: 10,
  });
  const table = sim.table("incident");
  const ordered = table.sysIds().map((id) => ({ id, ts: table.get(id)!.sys_updated_on }))
    .sort((a, b) => a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.id < b.id ? -1 : 1).map((r) => r.id);
  sim.faults.add({ table: "incident", fault: { kind: "acl_hide", ...hide(ordered) } });
  const sweeps: SweepLine[] = [];
  const abort = new AbortController();
  const context = benchSourceContext(
    pino({ level: "debug", base: undefined }, {
      write: (line: string) => {
        const parsed = JSON.parse(line);
        if (parsed.msg === "sweep done") sweeps.push(parsed);
      },
    }),
    abort.signal,
  );
  const raw = benchSourceConfig(sim.url, {
    "svc.table.inc.fields": "sys_id,sys_updated_on",
    "svc.source.batch.size": String(batch),
    "svc.source.poll.interval.ms": "10",
  });
  const task = new TableSourceTask({ pollWaitMs: 50 });
  await task.start(raw, analyzeConnector(raw, { worker: {} }).values, context);
  const started = performance.now();
  let records = 0;
  let backfillMs = 0;
  while (sweeps.length < 3) {
    records += (await task.poll()).length;
    if (sweeps.length >= 1 && backfillMs === 0) backfillMs = performance.now() - started;
  }
  abort.abort();
  await task.stop();
  await sim.stop();
  const [first, later] = [sweeps[0], sweeps.at(-1)!];
  console.log(
    `${name.padEnd(40)} ${fmt(records).padStart(7)} records; first sweep ${fmt(first.pages)} requests ` +
      `(${fmt(first.counted)} counted, ${first.splits} splits) in ${(backfillMs / 1000).toFixed(1)} s; ` +
      `later sweep ${later.pages} (${later.counted} counted, ${later.splits} splits)`,
  );
}
