/**
 * The demo (scripts/demo): the simulator with an incident table and a live writer, a real Apache Kafka broker
 * (single-node KRaft from the jars scripts/bootstrap resolved; stopped with the demo, even when it is killed) and
 * the daemon running deploy/examples/demo.yaml (deletion capture on; it creates its topic with topic.creation.*).
 * Deletes a row over the table API every few seconds, prints the status page's address, and prints per-table
 * progress (phase, rows emitted, remaining and ETA during the backfill, lag, tombstones) every two seconds until
 * Ctrl-C or the time limit.
 *
 * `--exactly-once` runs the same config with its one key `exactly.once.source.support` set to `enabled`: records
 * and offsets go in one Kafka transaction. Either way the demo follows one incident, updating it every few seconds,
 * and prints the versions of that key a read_committed consumer of the topic saw, marking any seen twice.
 *
 *   scripts/demo [--seconds N] [--rows N] [--writer-rate N] [--delete-every N] [--exactly-once]
 */
import { startSimulator } from "../src/sim/mod.ts";
import { describeBroker, launchKafkaBroker, stopKafkaBroker } from "../tests/support/kafka_broker_process.ts";
import { createKafka } from "../src/kafka/mod.ts";

function option(name: string, fallback: number): number {
  const i = Deno.args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const n = Number(Deno.args[i + 1]);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`--${name} needs a number`);
    Deno.exit(2);
  }
  return n;
}

const seconds = option("seconds", 0);
const rows = option("rows", 20000);
const writerRate = option("writer-rate", 50);
const deleteEvery = option("delete-every", 3);
const root = new URL("..", import.meta.url).pathname;
const dataDir = await Deno.makeTempDir({ prefix: "tablesync-demo-" });
const password = crypto.randomUUID();

console.log(
  `starting the instance simulator with ${rows} incidents and a writer at ${writerRate} changes/s ...`,
);
const sim = await startSimulator({
  port: 0,
  seed: { incident: rows },
  users: [`admin:${password}`],
  writer: writerRate > 0 ? { rowsPerSecond: writerRate, table: "incident" } : undefined,
});

console.log("starting a Kafka broker (Apache Kafka from .tools/kafka, single-node KRaft) ...");
const broker = await launchKafkaBroker();
console.log(describeBroker(broker));
const bootstraps = broker.bootstrapServers;

// The one key that turns exactly-once on, flipped in a copy of the demo config.
const exactlyOnce = Deno.args.includes("--exactly-once");
const configPath = `${dataDir}/demo.yaml`;
const demoConfig = await Deno.readTextFile(`${root}deploy/examples/demo.yaml`);
await Deno.writeTextFile(
  configPath,
  demoConfig.replace(
    "exactly.once.source.support: disabled",
    `exactly.once.source.support: ${exactlyOnce ? "enabled" : "disabled"}`,
  ).replace("$schema=../../docs/", `$schema=${root}docs/`),
);
console.log(`exactly.once.source.support: ${exactlyOnce ? "enabled" : "disabled"}`);

const restPort = 18083 + Math.floor(Math.random() * 1000);
console.log(`starting tablesync (REST API on http://127.0.0.1:${restPort}) ...`);
const daemon = new Deno.Command(Deno.execPath(), {
  args: ["run", "--allow-all", `${root}main.ts`, "run", "--config", configPath],
  env: {
    DEMO_BOOTSTRAP_SERVERS: bootstraps,
    DEMO_REST_PORT: String(restPort),
    DEMO_DATA_DIR: dataDir,
    DEMO_INSTANCE_URL: sim.url,
    DEMO_INSTANCE_PASSWORD: password,
  },
  stdout: "inherit",
  stderr: "inherit",
}).spawn();

const api = `http://127.0.0.1:${restPort}`;
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log("\nstopping ...");
  try {
    daemon.kill("SIGTERM");
  } catch { /* already gone */ }
  await daemon.status;
  await reader?.close().catch(() => {});
  await stopKafkaBroker(broker);
  await sim.stop();
  await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", stop);
Deno.addSignalListener("SIGTERM", stop);
daemon.status.then((s) => {
  if (!stopping) {
    console.error(`tablesync exited unexpectedly (code ${s.code})`);
    stop();
  }
});

const started = Date.now();
function metric(text: string, name: string, match: string): number {
  const line = text.split("\n").find((l) => l.startsWith(name) && l.includes(match));
  return line ? Number(line.split(" ").pop()) : 0;
}

/** Deletes one incident over the table API, as a user would: the instance audits it, the daemon sees it. */
async function deleteOne(): Promise<string | null> {
  // Never the incident the demo follows.
  const ids = sim.table("incident").sysIds().filter((id) => id !== watched);
  const victim = ids[Math.floor(Math.random() * ids.length)];
  const number = sim.table("incident").get(victim)?.number;
  const res = await fetch(`${sim.url}/api/now/table/incident/${victim}`, {
    method: "DELETE",
    headers: { authorization: `Basic ${btoa(`admin:${password}`)}` },
  });
  return res.status === 204 ? `${number} (${victim})` : null;
}

function duration(s: number | null): string {
  if (s === null) return "?";
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}

// One incident followed through Kafka: updated every few seconds, its versions read back with read_committed.
const watched = sim.table("incident").sysIds()[0];
const watchedNumber = sim.table("incident").get(watched)?.number;
const watchedVersions: number[] = [];
const kafka = createKafka({
  brokers: [bootstraps],
  clientId: "demo-reader",
  requestTimeoutMs: 30_000,
  connectionTimeoutMs: 10_000,
});
/** Started once the connector created its topic (a subscription needs the topic to exist). */
let reader: Awaited<ReturnType<typeof kafka.consumer>> | null = null;
async function startReader(): Promise<void> {
  const admin = await kafka.admin();
  const exists = await admin.topicExists("demo.incident").finally(() => admin.close());
  if (!exists) return;
  reader = await kafka.consumer({ topics: ["demo.incident"] }, {
    groupId: `demo-reader-${crypto.randomUUID()}`,
    readCommitted: true,
    autoOffsetReset: "earliest",
  });
  await reader.run((batch) => {
    for (const r of batch.records) {
      if (r.key && new TextDecoder().decode(r.key) === watched) {
        const value = r.value ? JSON.parse(new TextDecoder().decode(r.value)) : null;
        watchedVersions.push(value ? Number(value.sys_mod_count) : -1);
      }
    }
    return Promise.resolve();
  });
}

let printedUi = false;
let deleted = 0;
let lastDelete = Date.now();
while (!stopping) {
  await new Promise((r) => setTimeout(r, 2000));
  try {
    const status = await (await fetch(`${api}/connectors/demo-incidents/status`)).json();
    const tables = await (await fetch(`${api}/connectors/demo-incidents/tables`)).json();
    const metrics = await (await fetch(`${api}/metrics`)).text();
    if (!printedUi) {
      console.log(`status page: ${api}/ui (open it in a browser)`);
      printedUi = true;
    }
    if (deleteEvery > 0 && Date.now() - lastDelete >= deleteEvery * 1000) {
      lastDelete = Date.now();
      const what = await deleteOne();
      if (what) {
        deleted++;
        console.log(`deleted incident ${what} over the table API`);
      }
    }
    const tombstones = metric(metrics, "tablesync_source_deletes_total", 'alias="incident"');
    const t = tables[0];
    const elapsed = Math.round((Date.now() - started) / 1000);
    const progress = !t
      ? "starting"
      : t.phase === "backfill"
      ? `backfill · ${t.rows_emitted} rows emitted · ${t.rows_remaining ?? "?"} remaining · ETA ${
        duration(t.eta_seconds)
      }`
      : `streaming · ${t.rows_emitted} rows emitted · lag ${duration(t.lag_seconds)}`;
    if (reader === null) await startReader();
    if (sim.table("incident").get(watched)) {
      sim.table("incident").update(watched, { short_description: `demo update at ${elapsed}s` });
    }
    const twice = watchedVersions.filter((v, i) => watchedVersions.indexOf(v) !== i);
    console.log(
      `        ${watchedNumber} (one key, read_committed): versions ${
        watchedVersions.map((v) => v < 0 ? "tombstone" : v).join(",") || "none yet"
      } · ${twice.length === 0 ? "none seen twice" : `seen twice: ${twice.join(",")}`}`,
    );
    console.log(
      `[${String(elapsed).padStart(4)}s] incident: ${
        status.tasks?.[0]?.state ?? status.connector?.state
      } · ` +
        `${progress} · ${deleted} deleted, ${tombstones} tombstones emitted`,
    );
  } catch (e) {
    console.log(`waiting for the daemon: ${(e as Error).message}`);
  }
  if (seconds > 0 && Date.now() - started >= seconds * 1000) await stop();
}
