/**
 * Sink throughput through the daemon against the simulator at a fixed latency per request (per round trip),
 * compared in the same run with the ceiling that latency allows for one request per record: permits / latency
 * (8 permits at 20 ms = 400 writes/s); then the same records through the Batch API (svc.sink.batch.enabled).
 *
 *   deno run -A bench/sink_e2e.ts [--records 4000] [--latency-ms 20] [--permits 8] [--batch-records 50]
 *                                 [--check-latency-ms 100] [--check-records 800] [--baseline <dir>] [--rounds 1]
 *
 * Records are PATCHes of existing rows keyed by sys_id, spread over many keys. The simulator runs in a process
 * of its own (bench/support/journal_simulator.ts): its journal gives the exact time of the first and last write
 * (the consumer group's first join is not part of the figure), how long the simulator took per request and how
 * many requests it had in flight on average; when that mean is below the permits while its time per request is
 * above the latency, the simulator (or the machine) is the bottleneck, not the daemon. The simulator's own CPU
 * is printed beside the daemon's. The same is then measured at `--check-latency-ms` (0: skipped), where the CPU
 * per write matters much less: near its ceiling there, the daemon keeps its permits busy, and what it lacks at
 * the shorter latency is CPU. `--baseline <dir>` also runs the daemon of another checkout (e.g. an older
 * commit extracted with `git archive`) on the same records, alternating with this one, so figures before and
 * after a change come from one run; `--rounds N` repeats the one-request-per-record runs at `--latency-ms` N
 * times, every other round in the reverse order, and prints each daemon's mean. Before and after those runs,
 * bare fetch loops (bench/support/bare_writer.ts: one per permit, no Kafka, no daemon) write the same number of
 * rows: what the machine allows at that moment, to read the daemon's figures against (the daemon's rate as a
 * ratio to their mean, and their CPU per write beside the daemon's). Figures are printed, never asserted.
 */
import { createKafka, kafkaOptionsFromProperties } from "../src/kafka/mod.ts";
import {
  arg,
  cpuSeconds,
  fmt,
  peakRss,
  startBrokerProcess,
  startDaemonProcess,
} from "./support/processes.ts";
import type { WriteSummary } from "./support/journal_simulator.ts";

const records = arg("records", 4000);
const latencyMs = arg("latency-ms", 20);
const permits = arg("permits", 8);
const batchRecords = arg("batch-records", 50);
const checkLatencyMs = arg("check-latency-ms", 100);
const checkRecords = arg("check-records", 800);
const rounds = arg("rounds", 1);
const baselineAt = Deno.args.indexOf("--baseline");
const baseline = baselineAt >= 0 ? Deno.args[baselineAt + 1] : null;

// BENCH_DAEMON_PROFILE_SECONDS: the daemon's threads profile themselves for that long (with
// TABLESYNC_CPU_PROFILE_DIR set), shorter than the simulator's profile, which starts before the broker.
const daemonProfileSeconds = Deno.env.get("BENCH_DAEMON_PROFILE_SECONDS");
const daemonEnv: Record<string, string> = daemonProfileSeconds
  ? { TABLESYNC_CPU_PROFILE_SECONDS: daemonProfileSeconds }
  : {};
const loadAverage = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
console.log(`load average at start ${loadAverage()} (${navigator.hardwareConcurrency} cores)`);

const sim = await startJournalSimulator({
  seed: { incident: Math.min(records, 5000) },
  users: ["admin:bench-pass"],
  latencyMs,
});
const daemons: Array<{ label: string; root?: string }> = baseline === null
  ? [{ label: "" }]
  : [{ label: " (before)", root: baseline }, { label: " (after)" }];
const topics = daemons.flatMap((_, i) => [
  ...Array.from({ length: rounds }, (_, round) => `bench.sink.${i}.${round}`),
  `bench.sink.batch.${i}`,
  `bench.sink.slow.${i}`,
]);
const broker = await startBrokerProcess(topics.map((t) => `${t}:8`).join(","));
const ids: string[] = await (await fetch(`${sim.control}/sys-ids?table=incident`)).json();
const encoder = new TextEncoder();
const ceiling = permits / (latencyMs / 1000);
console.log(
  `${fmt(records)} records per run; simulator latency ${latencyMs} ms per request, ${permits} permits; ` +
    `ceiling permits/latency ${fmt(ceiling)} writes/s`,
);

const bare = [await runBareWriter()];

// Per daemon, its rate in each round; every other round runs the daemons in the reverse order, so that a drift
// of the machine's load during the rounds weighs on both alike.
const rates: number[][] = daemons.map(() => []);
for (let round = 0; round < rounds; round++) {
  const order = [...daemons.keys()];
  if (round % 2 === 1) order.reverse();
  for (const i of order) {
    const { label, root } = daemons[i];
    const rate = await runSink(`bench.sink.${i}.${round}`, {}, label, root);
    rates[i].push(rate);
    console.log(`ratio to the ceiling${label} ${(rate / ceiling).toFixed(2)}  (target >= 0.90)`);
  }
}
const single = rates.map((r) => r.reduce((a, b) => a + b, 0) / r.length);
if (rounds > 1) {
  for (const [i, daemon] of daemons.entries()) {
    console.log(
      `\nmean of ${rounds} rounds${daemon.label}: ${fmt(single[i])} writes/s = ${
        (single[i] / ceiling).toFixed(2)
      } of the ceiling`,
    );
  }
}
// Again after the daemons, since what the machine allows drifts with the other jobs on it.
bare.push(await runBareWriter());
const bareMean = (bare[0] + bare[1]) / 2;
for (const [i, daemon] of daemons.entries()) {
  console.log(
    `ratio to the bare fetch loops${daemon.label} ${(single[i] / bareMean).toFixed(2)}  (their mean ${
      fmt(bareMean)
    } writes/s)`,
  );
}
if (checkLatencyMs > latencyMs) {
  await sim.extraLatency(checkLatencyMs - latencyMs);
  const slowCeiling = permits / (checkLatencyMs / 1000);
  for (const [i, daemon] of daemons.entries()) {
    const rate = await runSink(
      `bench.sink.slow.${i}`,
      {},
      daemon.label,
      daemon.root,
      checkRecords,
      checkLatencyMs,
    );
    console.log(
      `ratio to the ceiling at ${checkLatencyMs} ms (${fmt(slowCeiling)} writes/s)${daemon.label} ${
        (rate / slowCeiling).toFixed(2)
      }`,
    );
  }
  await sim.extraLatency(0);
}
for (const [i, daemon] of daemons.entries()) {
  const batched = await runSink(
    `bench.sink.batch.${i}`,
    {
      "svc.sink.batch.enabled": "true",
      "svc.sink.batch.max.records": batchRecords,
    },
    daemon.label,
    daemon.root,
  );
  console.log(
    `Batch API (${batchRecords} per request) / one request per record${daemon.label}: ${
      (batched / single[i]).toFixed(2)
    }x  (target >= 3)`,
  );
}
console.log(`load average at the end ${loadAverage()}`);
await broker.stop();
await sim.stop();

/** Writes `count` PATCHes through a sink daemon reading `topic`; prints and returns writes per second. */
async function runSink(
  topic: string,
  extra: Record<string, unknown>,
  label: string,
  root?: string,
  count = records,
  latency = latencyMs,
): Promise<number> {
  const options = await kafkaOptionsFromProperties({ "bootstrap.servers": broker.bootstrap });
  const producer = await createKafka(options.connection).producer({ acks: -1 });
  for (let start = 0; start < count; start += 1000) {
    const batch = [];
    for (let i = start; i < Math.min(count, start + 1000); i++) {
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
  const { seq } = await sim.writes("PATCH", 0);
  const daemon = await startDaemonProcess(
    {
      worker: {
        "bootstrap.servers": broker.bootstrap,
        "listeners": "http://127.0.0.1:0",
        "log.level": "info",
      },
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
    },
    daemonEnv,
    { root },
  );
  const deadline = Date.now() + 600_000;
  let ok = 0;
  // CPU is counted from the first write seen on, so the daemon's start and the group join are not part of it.
  let cpuFrom: { daemon: number; sim: number; ok: number } | null = null;
  // The bench's producer may have sent a few records twice (a retried produce request): wait for at least one
  // write per record, then count what was written.
  // The daemon's own view of the permits: its requests in flight (the metric), sampled while it writes.
  const inFlightSamples: number[] = [];
  while (ok < count) {
    await new Promise((r) => setTimeout(r, 100));
    ok = await sim.written("PATCH", seq);
    cpuFrom ??= ok > 0 ? { daemon: cpuSeconds(daemon.pid), sim: cpuSeconds(sim.pid), ok } : null;
    if (ok > 0 && ok < count) inFlightSamples.push(await daemonInFlight(daemon.url));
    if (Date.now() > deadline) throw new Error(`only ${ok} writes after 10 minutes`);
  }
  const writes = await sim.writes("PATCH", seq);
  const seconds = (writes.last - writes.first) / 1000;
  const rate = writes.ok / seconds;
  const counted = writes.ok - (cpuFrom?.ok ?? 0);
  const daemonCpu = cpuSeconds(daemon.pid) - (cpuFrom?.daemon ?? 0);
  const simCpu = cpuSeconds(sim.pid) - (cpuFrom?.sim ?? 0);
  const batched = extra["svc.sink.batch.enabled"] !== undefined;
  console.log(
    `\nsink writes, ${batched ? `Batch API` : `one request per record`}${label}: ${fmt(rate)} writes/s ` +
      `(${fmt(writes.ok)} writes in ${seconds.toFixed(2)} s, latency ${latency} ms)`,
  );
  // A batch's items are journaled with no latency of their own: the round trips are the batch requests.
  const trips = batched ? await sim.writes("POST", seq, "/batch") : writes;
  console.log(
    `  simulator: ${fmt(trips.entries)} round trips of ${trips.meanMs.toFixed(1)} ms on average ` +
      `(latency ${latency}), ${
        trips.meanInFlight.toFixed(2)
      } in flight on average, ${trips.peakInFlight} at most` +
      (batched ? `, ${(writes.entries / Math.max(1, trips.entries)).toFixed(1)} items per batch` : ""),
  );
  const permitsBusy = inFlightSamples.reduce((a, b) => a + b, 0) / Math.max(1, inFlightSamples.length);
  console.log(
    `  permits busy in the daemon: ${permitsBusy.toFixed(2)} of ${permits} on average ` +
      `(${inFlightSamples.length} samples of its requests in flight)`,
  );
  console.log(
    `  share of the time with n in flight at the simulator: ${
      trips.inFlightShare.map((share, n) => `${n}: ${(share * 100).toFixed(0)} %`).filter((_, n) =>
        n > 0 || trips.inFlightShare[0] > 0
      ).join(", ")
    }`,
  );
  console.log(
    `  CPU per 1000 writes (over the last ${fmt(counted)}): daemon ${
      (daemonCpu / counted * 1000).toFixed(2)
    } s, ` +
      `simulator ${(simCpu / counted * 1000).toFixed(2)} s; daemon peak memory ${
        fmt(peakRss(daemon.pid) / 1048576)
      } MB`,
  );
  await daemon.stop();
  return rate;
}

/**
 * The same writes from bench/support/bare_writer.ts (fetch loops, one per permit, no daemon) against the same
 * simulator: what this machine allows now, to read the daemon's figures against. Returns writes per second.
 */
async function runBareWriter(): Promise<number> {
  const { seq } = await sim.writes("PATCH", 0);
  const cpuBefore = cpuSeconds(sim.pid);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      new URL("./support/bare_writer.ts", import.meta.url).pathname,
      sim.url,
      "admin:bench-pass",
      sim.control,
      "incident",
      String(records),
      String(permits),
    ],
    stdout: "piped",
  }).spawn();
  const output = await child.output();
  if (!output.success) throw new Error("the bare writer failed");
  const bareCpu = Number(/cpu (\S+)/.exec(new TextDecoder().decode(output.stdout))?.[1] ?? NaN);
  const writes = await sim.writes("PATCH", seq);
  const simCpu = cpuSeconds(sim.pid) - cpuBefore;
  const rate = writes.ok / ((writes.last - writes.first) / 1000);
  console.log(
    `\nbare fetch loops (${permits} at once, no daemon): ${fmt(rate)} writes/s = ${
      (rate / ceiling).toFixed(2)
    } of the ceiling; simulator: ${writes.meanMs.toFixed(1)} ms per round trip, ${
      writes.meanInFlight.toFixed(2)
    } in flight on average; CPU per 1000 writes: bare loops ${(bareCpu / writes.ok * 1000).toFixed(2)} s, ` +
      `simulator ${(simCpu / writes.ok * 1000).toFixed(2)} s`,
  );
  return rate;
}

/** The daemon's requests in flight to the instance now (the sum of `tablesync_instance_in_flight`). */
async function daemonInFlight(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text.split("\n").filter((line) => line.startsWith("tablesync_instance_in_flight"))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
}

/** bench/support/journal_simulator.ts as a child process, and its control calls. */
async function startJournalSimulator(options: Record<string, unknown>) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      new URL("./support/journal_simulator.ts", import.meta.url).pathname,
      JSON.stringify(options),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let ready: RegExpExecArray | null = null;
  while (!(ready = /listening on (\S+) control (\S+)/.exec(text))) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the simulator ended before it was ready:\n${text}`);
    text += value;
  }
  // Keep draining so the child never blocks on a full pipe.
  void (async () => {
    while (!(await reader.read()).done);
  })();
  const [, url, control] = ready;
  return {
    url,
    control,
    pid: child.pid,
    async extraLatency(ms: number): Promise<void> {
      await (await fetch(`${control}/extra-latency?ms=${ms}`, { method: "POST" })).body?.cancel();
    },
    /** Writes of `method` answered 200 or 201 after `after`: cheap, for polling while the daemon writes. */
    async written(method: string, after: number): Promise<number> {
      const query = new URLSearchParams({ method, after: String(after) });
      return (await (await fetch(`${control}/written?${query}`)).json()).ok;
    },
    async writes(method: string, after: number, path?: string): Promise<WriteSummary> {
      const query = new URLSearchParams({ method, after: String(after), ...(path ? { path } : {}) });
      return await (await fetch(`${control}/writes?${query}`)).json();
    },
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
