/**
 * One broker fault under running daemons, measured: a broker of its own (restartable), the simulator with a backfill
 * and a live writer, and two daemons reading the same table into two topics at once, one at-least-once and one
 * exactly-once (a worker with exactly.once.source.support=enabled runs every source task transactionally, so the
 * two modes need two workers; running them side by side makes a fault cost its own duration once, not twice).
 *
 * While the fault lasts, each daemon's task state is read over REST every second and its resident memory sampled;
 * after it clears, the writer runs on for a while, stops, and each topic is read back (read_committed) until every
 * row's final version is there. The figures of each mode (rows lost, versions delivered twice, seconds from the
 * fault clearing to the first new record, peak RSS, log lines about the fault) are returned and printed as one
 * `FAULT-FIGURES {json}` line each, for docs/reliability.md. Tests assert on the counts and states, never on times.
 */
import { type LaunchedBroker, launchKafkaBroker, stopKafkaBroker } from "./kafka_broker_process.ts";
import { type DaemonProcess, startDaemonProcess } from "./daemon_process.ts";
import { waitFor } from "./wait.ts";
import { sourceConnectorConfig } from "./source_connector.ts";
import { readTopicWithKcat } from "./kafka_helpers.ts";
import { describeVerdict, type ExactlyOnceVerdict, exactlyOnceVerdict } from "./exactly_once_check.ts";
import { isAlive } from "./owner_watchdog.ts";
import { type Simulator, startSimulator } from "../../src/sim/mod.ts";
import { createKafka } from "../../src/kafka/mod.ts";

const PASSWORD = "pw-Fault-Plover-3";
/** Rows at start: the backfill is still being written when the fault comes. */
const SEED_ROWS = 4000;
/** The stream: 20 changes a second, half of them new rows. */
const WRITER = { rowsPerSecond: 20, table: "incident", insertRatio: 0.5 } as const;
/** Records per poll of the instance (and so at most per send): the bound on one batch re-sent. */
const BATCH_SIZE = 200;
/** How long the writer runs on after the fault cleared, so streaming after recovery is measured too. */
const STREAM_AFTER_MS = 10_000;

export type FaultMode = "at-least-once" | "exactly-once";

/** One daemon under the fault: its delivery mode and, optionally, connector settings of its own. */
export interface FaultVariant {
  mode: FaultMode;
  /** Names the variant in the figures; default the mode. */
  label?: string;
  /** Added to the connector's config (e.g. producer.override.delivery.timeout.ms). */
  connector?: Record<string, string | number>;
}

const BOTH_MODES: FaultVariant[] = [{ mode: "at-least-once" }, { mode: "exactly-once" }];

export interface FaultFigures {
  fault: string;
  mode: FaultMode;
  variant: string;
  /** Rows whose final version never reached the topic. */
  rowsLost: number;
  /** Row versions on the topic more than once (extra copies counted). */
  duplicates: number;
  /** Row versions written by the instance from the fault's start until the writer stopped. */
  versionsWrittenDuringAndAfter: number;
  /** Rows of the backfill, which may be in flight when the fault comes. */
  backfillRows: number;
  /** Seconds from the fault clearing to the first record on the topic after it. */
  secondsToFirstRecord: number | null;
  /** Task states read over REST during the fault and until recovery (distinct, in order seen). */
  taskStates: string[];
  /** The task's status trace or warnings seen during the fault (first of each). */
  reasons: string[];
  rssBeforeMiB: number;
  peakRssDuringMiB: number;
  /** The daemon's warn and error lines from the fault's start to recovery. */
  logLines: number;
  /** Of those, lines carrying a stack trace (a failed task's own trace, restarted by the daemon, not counted). */
  stackTraces: number;
  /** Restarts of a failed task by the daemon itself. */
  restartsByDaemon: number;
  finalState: string;
  records: number;
}

export interface BrokerFault {
  /** A short name, e.g. "broker SIGSTOP 60 s". */
  name: string;
  /** Injects the fault and returns once it has cleared (the broker serving again): the broker as it now runs. */
  inject(broker: LaunchedBroker): Promise<LaunchedBroker>;
  /** The daemons run side by side; default one at-least-once and one exactly-once. */
  variants?: FaultVariant[];
}

interface Side {
  mode: FaultMode;
  variant: string;
  topic: string;
  daemon: DaemonProcess;
  states: string[];
  reasons: string[];
  peakRss: number;
  rssBefore: number;
  logMark: number;
}

/** Runs `fault` under both modes at once; returns each mode's figures (printed as FAULT-FIGURES lines). */
export async function runBrokerFault(fault: BrokerFault): Promise<FaultFigures[]> {
  const sim = await startSimulator({ port: 0, seed: { incident: SEED_ROWS }, users: [`admin:${PASSWORD}`] });
  let broker = await launchKafkaBroker({ restartable: true });
  const sides: Side[] = [];
  try {
    for (const [i, variant] of (fault.variants ?? BOTH_MODES).entries()) {
      const { mode } = variant;
      const topic = `fault.${i}.${mode === "exactly-once" ? "eos" : "alo"}.incident`;
      await createTopic(broker.bootstrapServers, topic);
      const config = daemonConfig(broker.bootstrapServers, sim.url, variant, topic, i);
      const daemon = await startDaemonProcess(config);
      sides.push({
        mode,
        variant: variant.label ?? mode,
        topic,
        daemon,
        states: [],
        reasons: [],
        peakRss: 0,
        rssBefore: 0,
        logMark: 0,
      });
    }
    sim.writer.start(WRITER);
    // The fault comes while the backfill is being written: once each topic holds its first records.
    for (const side of sides) {
      await waitFor(
        async () => (await countRecords(broker, side.topic)) > 0,
        90_000,
        `first records on ${side.topic}`,
      );
    }
    const table = sim.table("incident");
    const versionsAtFault = totalVersions(sim);
    for (const side of sides) {
      side.rssBefore = rssMiB(side.daemon.process.pid);
      side.logMark = side.daemon.output().split("\n").length;
    }

    let faultOver = false;
    const watching = Promise.all(sides.map((side) => watch(side, () => faultOver)));
    broker = await fault.inject(broker);
    const cleared = performance.now();
    const firstRecord = sides.map(async (side) => {
      const atClear = await countRecords(broker, side.topic);
      const seen = await waitFor(
        async () => (await countRecords(broker, side.topic)) > atClear,
        180_000,
        `records on ${side.topic} after the fault`,
      ).catch(() => false);
      return seen ? (performance.now() - cleared) / 1000 : null;
    });
    const secondsToFirst = await Promise.all(firstRecord);
    faultOver = true;
    await watching;
    await new Promise((r) => setTimeout(r, STREAM_AFTER_MS));
    sim.writer.stop();
    const writtenDuringAndAfter = totalVersions(sim) - versionsAtFault;

    const figures: FaultFigures[] = [];
    for (const [i, side] of sides.entries()) {
      let verdict: ExactlyOnceVerdict | undefined;
      await waitFor(
        async () => {
          verdict = await exactlyOnceVerdict(broker.bootstrapServers, side.topic, table, new Set());
          return verdict.missing.length === 0;
        },
        150_000,
        `every row's final version on ${side.topic}`,
      ).catch(() => {});
      const status = await side.daemon.request("GET", "/connectors/fault/status");
      const lines = side.daemon.output().split("\n").slice(side.logMark);
      const result: FaultFigures = {
        fault: fault.name,
        mode: side.mode,
        variant: side.variant,
        rowsLost: verdict!.missing.length,
        duplicates: verdict!.duplicates.reduce((n, d) => n + Number(/×(\d+)$/.exec(d)![1]) - 1, 0),
        versionsWrittenDuringAndAfter: writtenDuringAndAfter,
        backfillRows: SEED_ROWS,
        secondsToFirstRecord: roundTenth(secondsToFirst[i]),
        taskStates: side.states,
        reasons: side.reasons,
        rssBeforeMiB: side.rssBefore,
        peakRssDuringMiB: side.peakRss,
        ...logFigures(lines),
        finalState: status.body?.tasks?.[0]?.state ?? `unknown (${JSON.stringify(status.body)})`,
        records: verdict!.records,
      };
      console.log(`FAULT-FIGURES ${JSON.stringify(result)}`);
      // What the failure message needs to be read: which versions, where, and what the daemon said.
      if (
        result.rowsLost > 0 || result.finalState !== "RUNNING" || result.stackTraces > 0 ||
        (side.mode === "exactly-once" && result.duplicates > 0)
      ) {
        console.log(`${side.variant}: ${describeVerdict(verdict!)}; log:\n${lines.slice(-40).join("\n")}`);
      }
      figures.push(result);
    }
    return figures;
  } finally {
    sim.writer.stop();
    for (const side of sides) await side.daemon.stop("SIGTERM");
    await sim.stop();
    await stopKafkaBroker(broker);
  }
}

/** SIGSTOP: the broker accepts connections but answers nothing (a hung broker, a network split). */
export function pauseBroker(broker: LaunchedBroker, paused: boolean): void {
  Deno.kill(broker.pid, paused ? "SIGSTOP" : "SIGCONT");
}

/** kill -9; returns once the JVM is gone. */
export async function killBroker(broker: LaunchedBroker): Promise<void> {
  Deno.kill(broker.pid, "SIGKILL");
  while (isAlive(broker.pid)) await new Promise((r) => setTimeout(r, 50));
}

function daemonConfig(
  bootstrapServers: string,
  simUrl: string,
  variant: FaultVariant,
  topic: string,
  index: number,
) {
  const exactlyOnce = variant.mode === "exactly-once";
  return {
    worker: {
      "bootstrap.servers": bootstrapServers,
      ...(exactlyOnce
        ? {
          "offset.storage.topic": `fault.${index}.offsets`,
          "offset.storage.partitions": 1,
          "offset.storage.replication.factor": 1,
          "exactly.once.source.support": "enabled",
        }
        : {}),
    },
    connectors: [{
      name: "fault",
      config: sourceConnectorConfig(simUrl, PASSWORD, { incident: topic }, {
        ...(exactlyOnce ? { "exactly.once.support": "required" } : {}),
        "svc.table.incident.fields": "sys_id,sys_updated_on,sys_mod_count,number,state",
        "svc.source.batch.size": BATCH_SIZE,
        "svc.source.poll.interval.ms": 500,
        "svc.source.startup.probe": false,
        ...variant.connector,
      }),
    }],
  };
}

/** Reads the task's state and reason every second and samples RSS until `over()`. */
async function watch(side: Side, over: () => boolean): Promise<void> {
  while (!over()) {
    side.peakRss = Math.max(side.peakRss, rssMiB(side.daemon.process.pid));
    try {
      const status = await side.daemon.request("GET", "/connectors/fault/status");
      const task = status.body?.tasks?.[0];
      const state = String(task?.state ?? "none");
      if (side.states.at(-1) !== state) side.states.push(state);
      for (const reason of [task?.trace, ...(task?.warnings ?? [])]) {
        const line = typeof reason === "string" ? reason.split("\n")[0] : undefined;
        if (line !== undefined && !side.reasons.includes(line)) side.reasons.push(line);
      }
    } catch { /* the REST API answers while Kafka is away; a failed request is only a missed sample */ }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/**
 * Through the daemon's own admin client, which waits until every partition serves: kafkajs's createTopics with
 * waitForLeaders failed once on a loaded machine when the metadata still answered UNKNOWN_TOPIC_OR_PARTITION.
 */
async function createTopic(bootstrapServers: string, topic: string): Promise<void> {
  const admin = await createKafka({
    brokers: [bootstrapServers],
    clientId: "broker-faults",
    requestTimeoutMs: 10_000,
    connectionTimeoutMs: 3_000,
  }).admin();
  try {
    await admin.createTopic(topic, { partitions: 4, replicationFactor: 1 });
  } finally {
    await admin.close();
  }
}

async function countRecords(broker: LaunchedBroker, topic: string): Promise<number> {
  try {
    return (await readTopicWithKcat(broker.bootstrapServers, topic)).length;
  } catch {
    return 0;
  }
}

/** Every row version the instance holds or held: inserts plus updates, as sys_mod_count counts them. */
function totalVersions(sim: Simulator): number {
  const table = sim.table("incident");
  return table.sysIds().reduce((n, id) => n + Number(table.get(id)!.sys_mod_count) + 1, 0);
}

/**
 * What a daemon logged from the fault on: warn and error lines, those with a stack trace (a failed task's own
 * trace excepted: a task restarted by the daemon logs its failure once), and restarts by the daemon itself.
 */
export function logFigures(
  lines: string[],
): { logLines: number; stackTraces: number; restartsByDaemon: number } {
  const loud = lines.filter(isWarnOrError);
  return {
    logLines: loud.length,
    stackTraces:
      loud.filter((l) => !/"msg":"task \S+ failed"/.test(l) && /\s+at .+:\d+:\d+|"stack"/.test(l)).length,
    restartsByDaemon: lines.filter((l) => /failed on a transient fault; restarting it/.test(l)).length,
  };
}

/** The resident memory of process `pid`, MiB (0 once it has exited). */
export function rssMiB(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

function isWarnOrError(line: string): boolean {
  return /"level":\s*"(warn|error|fatal)"|^\S+\s+(WARN|ERROR|FATAL)\b/.test(line);
}

function roundTenth(seconds: number | null): number | null {
  return seconds === null ? null : Math.round(seconds * 10) / 10;
}
