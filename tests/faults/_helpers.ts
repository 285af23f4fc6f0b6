/**
 * What the fault tests measure around one fault while the real daemon runs: how long the fault lasts (FAULT_SECONDS,
 * 120 by default: long enough for every backoff to reach its ceiling), the daemon's peak RSS and CPU time while it
 * lasts, the task states and warnings its REST status showed, and the one line of figures each fault prints
 * (`FAULT-FIGURES {json}`) for docs/reliability.md.
 */
import type { DaemonProcess } from "../support/daemon_process.ts";
import { currentRss } from "../support/process_stats.ts";
import { collectTopic } from "../support/topic_collector.ts";
import type { SimTable } from "../../src/sim/mod.ts";

/** How long each fault lasts, in seconds: FAULT_SECONDS, else 120 (CI); the long run sets e.g. 600. */
export function faultSeconds(): number {
  const raw = Deno.env.get("FAULT_SECONDS");
  const n = raw === undefined ? 120 : Number(raw);
  if (!(n > 0)) throw new Error(`FAULT_SECONDS must be a positive number of seconds, not ${raw}`);
  return n;
}

/** What the daemon showed while a fault lasted, sampled every second until `stop`. */
export interface FaultWatch {
  /** Each connector's task states seen (`RUNNING`, `FAILED`, …) and the warnings its tasks showed. */
  states: Map<string, Set<string>>;
  warnings: Map<string, Set<string>>;
  /** The first line of each failed task's trace. */
  traces: Map<string, Set<string>>;
  peakRssKiB: number;
  stop(): Promise<void>;
}

/** Samples the daemon's RSS and the status of `connectors` every second. */
export function watchDaemon(daemon: DaemonProcess, connectors: readonly string[]): FaultWatch {
  const watch: FaultWatch = {
    states: new Map(connectors.map((c) => [c, new Set<string>()])),
    warnings: new Map(connectors.map((c) => [c, new Set<string>()])),
    traces: new Map(connectors.map((c) => [c, new Set<string>()])),
    peakRssKiB: 0,
    stop: async () => {
      running = false;
      await loop;
    },
  };
  let running = true;
  const loop = (async () => {
    while (running) {
      watch.peakRssKiB = Math.max(watch.peakRssKiB, currentRss(daemon.process.pid) / 1024);
      for (const name of connectors) {
        const status = await daemon.request("GET", `/connectors/${name}/status`);
        for (const task of status.body?.tasks ?? []) {
          watch.states.get(name)!.add(task.state);
          for (const w of task.warnings ?? []) watch.warnings.get(name)!.add(w);
          if (task.trace) watch.traces.get(name)!.add(String(task.trace).split("\n")[0]);
        }
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return watch;
}

/** Warning and error lines of the daemon's output from `from` on (an index into its lines) that contain `needle`. */
export function linesSince(daemon: DaemonProcess, from: number, needle: string): string[] {
  return daemon.output().split("\n").slice(from).filter((line) =>
    line.includes(needle) && /"level":"(warn|error|fatal)"/.test(line)
  );
}

export function lineCount(daemon: DaemonProcess): number {
  return daemon.output().split("\n").length;
}

/** The figures of one fault, printed as one line for docs/reliability.md. */
export interface FaultFigures {
  fault: string;
  mode: "at-least-once" | "exactly-once";
  faultSeconds: number;
  rows: number;
  lost: number;
  duplicates: number;
  firstRecordAfterClearMs: number | null;
  states: string[];
  peakRssMiB: number;
  logLines: number;
  [extra: string]: unknown;
}

export function printFigures(figures: FaultFigures): void {
  console.log(`FAULT-FIGURES ${JSON.stringify(figures)}`);
}

/** A record on a source topic: the row, its version, and when the test read it. */
export interface Arrival {
  key: string;
  mod: string;
  at: number;
}

/** Reads a source topic into `seen` (every record with the instant it arrived). */
export function collectArrivals(bootstrap: string, topic: string, seen: Arrival[]) {
  return collectTopic(bootstrap, topic, seen, (m) => ({
    key: m.key,
    mod: String(m.value.sys_mod_count),
    at: Date.now(),
  }));
}

/** Rows of `table` whose final version is not among `seen`. */
export function missingFinalVersions(table: SimTable, seen: readonly Arrival[]): string[] {
  const have = new Set(seen.map((s) => `${s.key}/${s.mod}`));
  return table.sysIds().filter((id) => !have.has(`${id}/${table.get(id)!.sys_mod_count}`));
}

/** Records beyond the first of each row version. */
export function duplicateCount(seen: readonly Arrival[]): number {
  const versions = new Map<string, number>();
  for (const s of seen) versions.set(`${s.key}/${s.mod}`, (versions.get(`${s.key}/${s.mod}`) ?? 0) + 1);
  return [...versions.values()].reduce((n, c) => n + c - 1, 0);
}
