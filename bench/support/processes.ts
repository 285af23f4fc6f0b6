/**
 * Benchmark plumbing: the simulator, a Kafka broker and the daemon as separate processes (so each gets its own
 * CPU accounting), and process CPU and peak memory read from /proc.
 */
import { Kafka, logLevel } from "kafkajs";
import { DAEMON_V8_FLAGS } from "../../src/daemon/v8_flags.ts";
import {
  describeBroker,
  launchKafkaBroker,
  stopKafkaBroker,
} from "../../tests/support/kafka_broker_process.ts";
import { cpuSeconds } from "../../tests/support/process_stats.ts";
export { cpuSeconds, currentRss, peakRss } from "../../tests/support/process_stats.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

export interface Proc {
  child: Deno.ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

/** Reads lines of a stream until `match` returns a value; later output goes to `rest` (default: dropped). */
async function firstMatch<T>(
  stream: ReadableStream<Uint8Array>,
  match: (line: string) => T | undefined,
  rest?: (text: string) => void,
): Promise<T> {
  let buffer = "";
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`process ended before it was ready:\n${buffer}`);
    buffer += value;
    for (const line of buffer.split("\n")) {
      const found = match(line);
      if (found !== undefined) {
        // Keep draining so the child never blocks on a full pipe.
        (async () => {
          for (;;) {
            const next = await reader.read();
            if (next.done) break;
            rest?.(next.value);
          }
        })();
        return found;
      }
    }
  }
}

export async function startSimulatorProcess(
  seed: string,
  extra: string[] = [],
): Promise<Proc & { url: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      `${ROOT}main.ts`,
      "simulate",
      "--port",
      "0",
      "--seed",
      seed,
      "--user",
      "admin:bench-pass",
      ...extra,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const url = await firstMatch(child.stdout, (l) => /listening on (\S+)/.exec(l)?.[1]);
  return { child, pid: child.pid, url, stop: () => stop(child) };
}

/**
 * A real Apache Kafka broker (tests/support/kafka_broker_process.ts) with `topics` ("name:partitions,...")
 * created; its start-up time and memory are printed, since they are part of what a run costs.
 */
export async function startBrokerProcess(
  topics: string,
): Promise<{ pid: number; bootstrap: string; topicBytes(topic: string): number; stop(): Promise<void> }> {
  const broker = await launchKafkaBroker();
  console.log(describeBroker(broker));
  const kafka = new Kafka({
    brokers: [broker.bootstrapServers],
    clientId: "bench-admin",
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({
      waitForLeaders: true,
      topics: topics.split(",").map((spec) => {
        const [topic, partitions] = spec.split(":");
        return { topic, numPartitions: Number(partitions ?? 1), replicationFactor: 1 };
      }),
    });
  } finally {
    await admin.disconnect();
  }
  return {
    pid: broker.pid,
    bootstrap: broker.bootstrapServers,
    topicBytes: (topic) => topicBytesOnDisk(`${broker.dir}/data`, topic),
    stop: () => stopKafkaBroker(broker),
  };
}

/** The bytes of a topic's log segments in a broker's data directory (every partition). */
function topicBytesOnDisk(dataDir: string, topic: string): number {
  let bytes = 0;
  for (const d of Deno.readDirSync(dataDir)) {
    const partition = d.name.slice(topic.length + 1);
    if (!d.isDirectory || !d.name.startsWith(`${topic}-`) || !/^\d+$/.test(partition)) continue;
    for (const f of Deno.readDirSync(`${dataDir}/${d.name}`)) {
      if (f.name.endsWith(".log")) bytes += Deno.statSync(`${dataDir}/${d.name}/${f.name}`).size;
    }
  }
  return bytes;
}

/**
 * V8 flags for the daemon: the ones the executable embeds (src/daemon/v8_flags.ts), plus BENCH_DAEMON_V8_FLAGS
 * ("--flag=1,--other=2") for memory experiments. `plain: true` runs with neither, and with glibc's own malloc
 * behaviour (TABLESYNC_NATIVE_MEMORY=default): the figures before the memory tuning, side by side.
 */
function daemonV8Flags(plain: boolean): string[] {
  const flags = [
    ...(plain ? [] : DAEMON_V8_FLAGS),
    ...(Deno.env.get("BENCH_DAEMON_V8_FLAGS")?.split(",") ?? []),
  ];
  return flags.length > 0 ? [`--v8-flags=${flags.join(",")}`] : [];
}

/**
 * Starts the daemon on `config`. `root` runs the daemon of another checkout (e.g. an older commit extracted with
 * `git archive`), so a benchmark can print the figures before and after a change side by side in one run.
 */
export async function startDaemonProcess(
  config: unknown,
  env: Record<string, string> = {},
  { plain = false, root = ROOT }: { plain?: boolean; root?: string } = {},
): Promise<Proc & { url: string; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "tablesync-bench-" });
  // Offsets and REST state live in the run's own directory, so every run starts from scratch.
  const { worker, connectors } = config as { worker: Record<string, unknown>; connectors: unknown[] };
  const full = {
    worker: {
      "offset.storage.file.filename": `${dir}/offsets.json`,
      "config.storage.file.filename": `${dir}/connectors.json`,
      ...worker,
    },
    connectors,
  };
  await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(full));
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      ...daemonV8Flags(plain),
      `${root.replace(/\/?$/, "/")}main.ts`,
      "run",
      "--config",
      `${dir}/config.json`,
    ],
    env: { NO_COLOR: "1", ...(plain ? { TABLESYNC_NATIVE_MEMORY: "default" } : {}), ...env },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  // The daemon's log goes to <dir>/daemon.log, for a look when a figure is odd.
  const log = await Deno.open(`${dir}/daemon.log`, { write: true, create: true, append: true });
  const encoder = new TextEncoder();
  const url = await firstMatch(
    child.stderr,
    (l) => /REST API listening on (http\S+?)"/.exec(l)?.[1],
    (text) => log.writeSync(encoder.encode(text)),
  );
  return {
    child,
    pid: child.pid,
    url,
    dir,
    stop: async () => {
      await stop(child);
      log.close();
    },
  };
}

async function stop(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch { /* gone */ }
  await child.status;
}

/** CPU seconds of this process (main and worker threads). */
export function ownCpuSeconds(): number {
  return cpuSeconds(Deno.pid);
}

export function arg(name: string, fallback: number): number {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 ? Number(Deno.args[at + 1]) : fallback;
}

export const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits });
