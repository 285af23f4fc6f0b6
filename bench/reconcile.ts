/**
 * What a reconcile pass costs through the daemon: a table of `--rows` rows (simulator in this process, Kafka
 * broker and daemon in their own) is streamed to its topic, then passes are started over REST and measured:
 * the first (it seeds the state from the topic), one over the unchanged table, and one after 0.1 % of the rows
 * were updated silently. Per pass: the pass's own instance requests (its pages: ordered by sys_id alone) and
 * every request with the stream's polls during the pass (the simulator's journal and counters) beside the raw
 * page floor (rows ÷ batch size), rows returned, the bytes the instance answered, the state topic's size on the broker's
 * disk (a pass reads it once, and a range again per window beyond its first), the daemon's CPU seconds, its RSS sampled during the pass
 * (peak) and the repairs. Never asserted.
 *
 *   deno run -A bench/reconcile.ts [--rows 100000] [--batch 1000]
 */
import { startSimulator } from "../src/sim/mod.ts";
import { sleep } from "../tests/support/wait.ts";
import {
  arg,
  cpuSeconds,
  currentRss,
  fmt,
  startBrokerProcess,
  startDaemonProcess,
} from "./support/processes.ts";

const rows = arg("rows", 100_000);
const batch = arg("batch", 1000);
const sim = await startSimulator({ port: 0, seed: { incident: rows }, users: ["admin:bench-pass"] });
const broker = await startBrokerProcess("bench.incident:4");
const daemon = await startDaemonProcess({
  worker: { "bootstrap.servers": broker.bootstrap, "listeners": "http://127.0.0.1:0" },
  connectors: [{
    name: "bench",
    config: {
      "connector.class": "TableSourceConnector",
      "svc.url": sim.url,
      "svc.auth.username": "admin",
      "svc.auth.password": "bench-pass",
      "svc.tables": "incident",
      "svc.table.incident.name": "incident",
      "svc.table.incident.topic": "bench.incident",
      "svc.table.incident.fields": "sys_id,sys_updated_on,sys_mod_count,short_description,state,priority",
      "svc.source.batch.size": batch,
      "svc.source.reconcile.interval.seconds": 86400,
      "svc.source.reconcile.state.topic": "bench-reconcile-state",
    },
  }],
});

type Table = {
  rows_emitted: number;
  phase: string;
  reconcile?: {
    last_pass: { ended_at: string; rows_compared: number; repairs: Record<string, number> } | null;
    running: unknown;
  };
};
const table = async (): Promise<Table | undefined> =>
  (await (await fetch(`${daemon.url}/connectors/bench/tables`)).json())[0];

while (((await table())?.rows_emitted ?? 0) < rows || (await table())?.phase !== "streaming") {
  await sleep(1000);
}
console.log(`${fmt(rows)} rows streamed; raw page floor ${fmt(Math.ceil(rows / batch))} requests a pass`);

async function pass(label: string): Promise<void> {
  const before = (await table())?.reconcile?.last_pass?.ended_at ?? "";
  const seq0 = sim.journal.last()?.seq ?? 0;
  const requests0 = sim.counters.requests,
    returned0 = sim.counters.rowsReturned,
    bytes0 = sim.counters.bytesReturned,
    cpu0 = cpuSeconds(daemon.pid);
  const started = performance.now();
  for (;;) {
    const res = await fetch(`${daemon.url}/connectors/bench/tables/incident/reconcile`, { method: "POST" });
    await res.body?.cancel();
    if (res.status === 202) break;
    await sleep(500);
  }
  let peak = currentRss(daemon.pid);
  let last;
  for (;;) {
    last = (await table())?.reconcile?.last_pass;
    if (last && last.ended_at > before) break;
    peak = Math.max(peak, currentRss(daemon.pid));
    await sleep(200);
  }
  const requests = sim.counters.requests - requests0;
  const floor = Math.ceil(rows / batch);
  // A pass's pages are ordered by sys_id alone; the stream's polls by sys_updated_on first.
  const own = sim.journal.find((e) =>
    e.seq > seq0 && /ORDERBYsys_id/.test(e.params.sysparm_query ?? "") &&
    !/sys_updated_on/.test(e.params.sysparm_query ?? "")
  ).length;
  const mib = (n: number) => fmt(n / 1048576, 1);
  console.log(
    `${label}: ${fmt((performance.now() - started) / 1000, 1)} s, ${fmt(own)} requests of the pass (${
      fmt(own / floor, 3)
    } × floor), ${fmt(requests)} with the stream's polls, ${
      fmt(sim.counters.rowsReturned - returned0)
    } rows returned, ` +
      `${mib(sim.counters.bytesReturned - bytes0)} MiB from the instance, state topic ${
        mib(broker.topicBytes("bench-reconcile-state"))
      } MiB on disk, ` +
      `CPU ${fmt(cpuSeconds(daemon.pid) - cpu0, 1)} s, RSS peak ${fmt(peak / 1048576)} MiB, ` +
      `${fmt(last.rows_compared)} compared, repairs ${JSON.stringify(last.repairs)}`,
  );
}

await pass("first pass (seeds the state from the topic)");
await pass("unchanged");
const ids = sim.table("incident").sysIds();
for (let i = 0; i < rows / 1000; i++) {
  sim.drift.silentUpdate("incident", ids[Math.floor((i * ids.length) / (rows / 1000))], {
    short_description: `drift ${i}`,
  });
}
await pass("0.1 % silently updated");
await daemon.stop();
await broker.stop();
await sim.stop();
