/**
 * Source backfill, end to end through the daemon, measured side by side in one run against
 *   (a) a bare fetch-and-parse loop over the same simulator pages (the instance side's ceiling), and
 *   (b) a bare produce loop of the same records with our Kafka producer (the Kafka side's ceiling).
 * Prints rows per second of each, the ratio, CPU seconds per 100,000 rows and the daemon's peak memory.
 *
 *   deno run -A bench/source_e2e.ts [--rows 100000] [--batch 5000] [--latency-ms 0]
 *
 * `--latency-ms` adds that much latency to every simulator request: a latency-bound instance, where one table's
 * rate is about batch / (latency + transfer time) whatever the daemon does (see docs/scaling.md).
 *
 * The simulator, the broker and the daemon run as separate processes; figures are printed, never asserted.
 */
import { createKafka, kafkaOptionsFromProperties } from "../src/kafka/mod.ts";
import {
  arg,
  cpuSeconds,
  fmt,
  ownCpuSeconds,
  peakRss,
  startBrokerProcess,
  startDaemonProcess,
  startSimulatorProcess,
} from "./support/processes.ts";

const rows = arg("rows", 100_000);
const batch = arg("batch", 5000);
const latencyMs = arg("latency-ms", 0);
let fetchRate = 0;
let produceRate = 0;
const auth = { authorization: "Basic " + btoa("admin:bench-pass"), "accept-encoding": "identity" };

const sim = await startSimulatorProcess(
  `incident=${rows}`,
  latencyMs > 0 ? ["--latency-ms", String(latencyMs)] : [],
);
const broker = await startBrokerProcess("bench.produce:16,bench.e2e:16");
console.log(
  `${fmt(rows)} incident rows, pages of ${batch}; simulator ${sim.url}, broker ${broker.bootstrap}`,
);

// (a) bare fetch-and-parse: the same keyset pages the source asks for.
const pages: Record<string, unknown>[][] = [];
{
  const cpu0 = ownCpuSeconds();
  const started = performance.now();
  let cursor: { ts: string; id: string } | undefined;
  let total = 0;
  for (;;) {
    const query =
      (cursor ? `sys_updated_on>=${cursor.ts}^sys_updated_on>${cursor.ts}^ORsys_id>${cursor.id}^` : "") +
      "ORDERBYsys_updated_on^ORDERBYsys_id";
    const params = new URLSearchParams({
      sysparm_query: query,
      sysparm_limit: String(batch),
      sysparm_no_count: "true",
      sysparm_suppress_pagination_header: "true",
      sysparm_exclude_reference_link: "true",
    });
    const res = await fetch(`${sim.url}/api/now/table/incident?${params}`, { headers: auth });
    const page = (await res.json()).result as Record<string, string>[];
    pages.push(page);
    total += page.length;
    if (page.length < batch) break;
    cursor = { ts: page[page.length - 1].sys_updated_on, id: page[page.length - 1].sys_id };
  }
  const seconds = (performance.now() - started) / 1000;
  report("fetch+parse (bare)", total, seconds, ownCpuSeconds() - cpu0);
  fetchRate = total / seconds;
}

// (b) bare produce: the same rows as JSON values keyed by sys_id, acks=all, one send per page.
{
  const options = await kafkaOptionsFromProperties({ "bootstrap.servers": broker.bootstrap });
  const producer = await createKafka(options.connection).producer({ acks: -1 });
  const encoder = new TextEncoder();
  const cpu0 = ownCpuSeconds();
  const started = performance.now();
  let total = 0;
  const inFlight: Promise<unknown>[] = [];
  for (const page of pages) {
    inFlight.push(producer.send(page.map((row) => ({
      topic: "bench.produce",
      key: encoder.encode(row.sys_id as string),
      value: encoder.encode(JSON.stringify(row)),
    }))));
    total += page.length;
    if (inFlight.length >= 4) await inFlight.shift();
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  report("produce (bare)", total, seconds, ownCpuSeconds() - cpu0);
  produceRate = total / seconds;
  await producer.close();
}

// (c) the daemon: a source connector backfilling the same table.
{
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": broker.bootstrap, "listeners": "http://127.0.0.1:0", "log.level": "info" },
    connectors: [{
      name: "bench",
      config: {
        "connector.class": "TableSourceConnector",
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": "bench-pass",
        "svc.tables": "incident",
        "svc.table.incident.name": "incident",
        "svc.table.incident.topic": "bench.e2e",
        "svc.source.batch.size": batch,
      },
    }],
  });
  console.error(`daemon ${daemon.url}, log ${daemon.dir}/daemon.log`);
  const cpu0 = cpuSeconds(daemon.pid);
  const started = performance.now();
  let produced = 0;
  while (produced < rows) {
    await new Promise((r) => setTimeout(r, 100));
    const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
    produced = metrics.split("\n")
      .filter((l) => l.startsWith("tablesync_source_records_produced_total"))
      .reduce((n, l) => n + Number(l.split(" ").pop()), 0);
    const status = await (await fetch(`${daemon.url}/connectors/bench/status`)).json();
    if (status.tasks?.[0]?.state === "FAILED") {
      throw new Error(`the source task failed:\n${status.tasks[0].trace}`);
    }
    if (performance.now() - started > 300_000) throw new Error(`only ${produced} rows after 5 minutes`);
  }
  const seconds = (performance.now() - started) / 1000;
  // Metrics are reported every 2 s by the task: the end is known to within that, so the rate is a lower bound.
  report("daemon end to end", produced, seconds, cpuSeconds(daemon.pid) - cpu0);
  const peak = peakRss(daemon.pid);
  await daemon.stop();
  const e2eRate = produced / seconds;
  console.log(
    `\nratio end-to-end / min(fetch, produce): ${(e2eRate / Math.min(fetchRate, produceRate)).toFixed(2)}`,
  );
  console.log(
    `ratio end-to-end / fetch+parse: ${(e2eRate / fetchRate).toFixed(2)}; / produce: ${
      (e2eRate / produceRate).toFixed(2)
    }`,
  );
  console.log(`daemon peak memory (VmHWM, main + workers): ${fmt(peak / 1048576)} MB`);
}

await broker.stop();
await sim.stop();

function report(what: string, n: number, seconds: number, cpu: number) {
  console.log(
    `${what.padEnd(20)} ${fmt(n / seconds).padStart(9)} rows/s  (${fmt(n)} rows in ${
      seconds.toFixed(2)
    } s; ` +
      `${(cpu / n * 100_000).toFixed(2)} CPU s per 100k rows)`,
  );
}
