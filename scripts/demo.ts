/**
 * The demo (scripts/demo): the simulator with an incident table and a live writer, a real Apache Kafka broker
 * (single-node KRaft from the jars scripts/bootstrap resolved; stopped with the demo, even when it is killed) and
 * the daemon running deploy/examples/demo.yaml (deletion capture on; it creates its topic with topic.creation.*).
 * Deletes a row over the table API every few seconds, prints the status page's address and a kcat command that
 * reads the topic, and prints per-table progress (phase, rows emitted, remaining and ETA during the backfill, lag,
 * tombstones) every two seconds until Ctrl-C or the time limit.
 *
 * Signals: the daemon and the broker run in sessions of their own, so a terminal's Ctrl-C (SIGINT to the whole
 * foreground process group) reaches the demo alone, which sends the daemon exactly one SIGTERM: one graceful
 * shutdown, as `tablesync run` documents (a second signal would make it exit at once; a second Ctrl-C forwards
 * that one). If the demo itself is killed (SIGTERM, SIGKILL, a closed terminal), watchdogs stop the daemon
 * (gracefully) and the broker; the simulator runs inside the demo and ends with it.
 *
 *   scripts/demo [--seconds N] [--rows N] [--writer-rate N] [--latency-ms N] [--delete-every N]
 *                [--bootstrap-servers HOST:PORT] [--exactly-once]
 *
 * So the status page's chart has something to show, the backfill lasts about a minute (each request to the
 * simulator takes --latency-ms, as a real instance's do) and the writer's rate then rises and falls around
 * --writer-rate in a two-minute wave (between 10 % and 190 % of it).
 *
 * --bootstrap-servers uses a Kafka cluster that already runs (the topic is created there if missing) instead of
 * starting a broker.
 *
 * `--exactly-once` runs the same config with its one key `exactly.once.source.support` set to `enabled`: records
 * and offsets go in one Kafka transaction. Either way the demo follows one incident, updating it every few seconds,
 * and prints the versions of that key a read_committed consumer of the topic saw, marking any seen twice.
 */
import { startSimulator } from "../src/sim/mod.ts";
import { loadConfigFile } from "../src/config/load.ts";
import {
  describeBroker,
  type LaunchedBroker,
  launchKafkaBroker,
  stopKafkaBroker,
} from "../tests/support/kafka_broker_process.ts";
import { addWatchdogClient, watchOwner } from "../tests/support/owner_watchdog.ts";
import { createKafka } from "../src/kafka/mod.ts";
import { parseArgs } from "node:util";
import { installRefusals, readDeadLetters, REFUSALS_TOPIC, sendRefusals } from "./demo_refusals.ts";

const USAGE =
  `usage: scripts/demo [--seconds N] [--rows N] [--writer-rate N] [--latency-ms N] [--delete-every N]
                    [--bootstrap-servers HOST:PORT] [--exactly-once]

  --seconds N                 stop after N seconds (default: run until Ctrl-C)
  --rows N                    incidents in the simulator (default 40000)
  --writer-rate N             changes per second around which the writer's rate rises and falls (default 100)
  --latency-ms N              the simulator's time per request (default 250)
  --delete-every N            delete a row over the table API every N seconds, 0 for none (default 3)
  --bootstrap-servers H:P     use a Kafka cluster that already runs instead of starting a broker
  --exactly-once              exactly.once.source.support: enabled`;

// Strict, as tablesync's own commands: --help prints the usage, an unknown flag or a missing value exits 2 (an
// unknown flag, --help included, used to start the whole demo).
let parsed: ReturnType<typeof parseDemoArgs>;
function parseDemoArgs() {
  const number = { type: "string" } as const;
  return parseArgs({
    args: Deno.args,
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: "boolean", short: "h" },
      seconds: number,
      rows: number,
      "writer-rate": number,
      "latency-ms": number,
      "delete-every": number,
      "bootstrap-servers": { type: "string" },
      "exactly-once": { type: "boolean" },
    },
  }).values;
}
try {
  parsed = parseDemoArgs();
} catch (e) {
  console.error(`scripts/demo: ${(e as Error).message.split("\n")[0]}\n${USAGE}`);
  Deno.exit(2);
}
if (parsed.help) {
  console.log(USAGE);
  Deno.exit(0);
}

function option(
  name: "seconds" | "rows" | "writer-rate" | "latency-ms" | "delete-every",
  fallback: number,
): number {
  const given = parsed[name];
  if (given === undefined) return fallback;
  const n = Number(given);
  if (given.trim() === "" || !Number.isFinite(n) || n < 0) {
    console.error(`scripts/demo: --${name} needs a number of 0 or more, not ${JSON.stringify(given)}`);
    Deno.exit(2);
  }
  return n;
}

const seconds = option("seconds", 0);
const rows = option("rows", 40000);
const writerRate = option("writer-rate", 100);
const latencyMs = option("latency-ms", 250);
const deleteEvery = option("delete-every", 3);
const givenBootstraps = parsed["bootstrap-servers"];
const root = new URL("..", import.meta.url).pathname;
const configPath = `${root}deploy/examples/demo.yaml`;
const demoConnector = (await loadConfigFile(configPath)).connectors[0];
const topic = demoConnector.config["svc.table.incident.topic"];
const dataDir = await Deno.makeTempDir({ prefix: "tablesync-demo-" });
const password = crypto.randomUUID();

console.log(
  `starting the instance simulator with ${rows} incidents, ${latencyMs} ms per request and a writer at about ` +
    `${writerRate} changes/s ...`,
);
const sim = await startSimulator({
  port: 0,
  seed: { incident: rows },
  users: [`admin:${password}`],
  latencyMs,
  writer: writerRate > 0 ? { rowsPerSecond: writerRate, table: "incident" } : undefined,
});

console.log(`instance simulator on ${sim.url}`);
installRefusals(sim);

let broker: LaunchedBroker | undefined;
if (givenBootstraps === undefined) {
  console.log("starting a Kafka broker (Apache Kafka from .tools/kafka, single-node KRaft) ...");
  broker = await launchKafkaBroker();
  console.log(describeBroker(broker));
} else console.log(`using the Kafka cluster at ${givenBootstraps}`);
const bootstraps = givenBootstraps ?? broker!.bootstrapServers;
// The refusals sink's input topic exists before the sink subscribes to it.
{
  const admin = await createKafka({
    brokers: [bootstraps],
    clientId: "demo-setup",
    requestTimeoutMs: 30_000,
    connectionTimeoutMs: 10_000,
  }).admin();
  await admin.createTopic(REFUSALS_TOPIC, { partitions: 1, replicationFactor: 1 }).finally(() =>
    admin.close()
  );
}

// The one key that turns exactly-once on, flipped in a copy of the demo config.
const exactlyOnce = parsed["exactly-once"] === true;
const runConfigPath = `${dataDir}/demo.yaml`;
await Deno.writeTextFile(
  runConfigPath,
  (await Deno.readTextFile(configPath)).replace(
    "exactly.once.source.support: disabled",
    `exactly.once.source.support: ${exactlyOnce ? "enabled" : "disabled"}`,
  ).replace("$schema=../../docs/", `$schema=${root}docs/`),
);
console.log(`exactly.once.source.support: ${exactlyOnce ? "enabled" : "disabled"}`);

const restPort = 18083 + Math.floor(Math.random() * 1000);
// detached: the daemon gets a session (and process group) of its own, so a terminal's Ctrl-C does not reach it.
const daemon = new Deno.Command(Deno.execPath(), {
  args: ["run", "--allow-all", `${root}main.ts`, "run", "--config", runConfigPath],
  env: {
    DEMO_BOOTSTRAP_SERVERS: bootstraps,
    DEMO_REST_PORT: String(restPort),
    DEMO_DATA_DIR: dataDir,
    DEMO_INSTANCE_URL: sim.url,
    DEMO_INSTANCE_PASSWORD: password,
  },
  stdin: "null",
  stdout: "inherit",
  stderr: "inherit",
  detached: true,
}).spawn();
console.log(`starting tablesync (pid ${daemon.pid}, REST API on http://127.0.0.1:${restPort}) ...`);
console.log(`read the topic: kcat -b ${bootstraps} -t ${topic} -C -o beginning -f '%k %s\\n'`);

const api = `http://127.0.0.1:${restPort}`;
const connector = encodeURIComponent(demoConnector.name);
let stopping = false;
/** The refusals sink's dead letter queue, read once the sink runs (it creates the topic at start). */
let deadLetters: { close(): Promise<void> } | null = null;
/** One SIGTERM to the daemon per signal the demo gets: the first stops it gracefully, a second at once. */
const stop = async () => {
  try {
    daemon.kill("SIGTERM");
  } catch { /* already gone */ }
  if (stopping) return;
  stopping = true;
  console.log("\nstopping (tablesync shuts down gracefully; Ctrl-C again stops it at once) ...");
  const { code } = await daemon.status;
  console.log(`tablesync exited with code ${code}`);
  await reader?.close().catch(() => {});
  await deadLetters?.close().catch(() => {});
  if (broker) await stopKafkaBroker(broker);
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
// Started once the signal listeners are in place (no await between the spawn and them, so a signal never ends
// the demo with the daemon uncovered); from here on it covers a demo that is killed.
await watchOwner(Deno.pid, daemon.pid, dataDir);
// A killed demo's broker waits for the daemon's graceful stop, which commits its offsets to the broker.
if (broker) await addWatchdogClient(broker.dir, daemon.pid);

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

/** The writer's rate at `elapsedMs`: a two-minute wave between 10 % and 190 % of --writer-rate. */
function wavingRate(elapsedMs: number): number {
  return Math.max(1, Math.round(writerRate * (1 + 0.9 * Math.sin((2 * Math.PI * elapsedMs) / 120_000))));
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
  const exists = await admin.topicExists(topic).finally(() => admin.close());
  if (!exists) return;
  reader = await kafka.consumer({ topics: [topic] }, {
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
  if (stopping) break;
  if (writerRate > 0) {
    sim.writer.start({ rowsPerSecond: wavingRate(Date.now() - started), table: "incident" });
  }
  try {
    const status = await (await fetch(`${api}/connectors/${connector}/status`)).json();
    const tables = await (await fetch(`${api}/connectors/${connector}/tables`)).json();
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
        t.eta_seconds_estimate === null ? "?" : `~${duration(t.eta_seconds_estimate)} (estimate)`
      }`
      : `streaming · ${t.rows_emitted} rows emitted · lag ${duration(t.lag_seconds)}`;
    if (reader === null) await startReader();
    if (deadLetters === null) {
      const refusals = await (await fetch(`${api}/connectors/demo-refusals/status`)).json();
      if (refusals.tasks?.[0]?.state === "RUNNING") {
        await sendRefusals(kafka, sim.table("incident").sysIds().filter((id) => id !== watched));
        deadLetters = await readDeadLetters(kafka);
      }
    }
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
    if (!stopping) console.log(`waiting for the daemon: ${(e as Error).message}`);
  }
  if (seconds > 0 && Date.now() - started >= seconds * 1000) await stop();
}
