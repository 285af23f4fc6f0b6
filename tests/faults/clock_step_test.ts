/**
 * Clocks stepped by an hour while a source polls and a writer changes rows: forward an hour, back (to true time),
 * back another hour, forward again, each step held for a quarter of FAULT_SECONDS (at least 20 s).
 *
 * - The host's clock: the daemon runs under libfaketime (LD_PRELOAD, `FAKETIME_TIMESTAMP_FILE` re-read every
 *   second), its wall clock stepped while its monotonic clock runs on, as an NTP step does. Skipped with a
 *   message where libfaketime is not installed (`apt-get install faketime`).
 * - The instance's clock: the simulator's clock (its `Date` header and the `sys_updated_on` of every write)
 *   stepped the same way, under a daemon on true time.
 *
 * Asserted: no row lost (a row stamped in what became the instance's future when its clock was set back is read
 * once the clock reaches its time again: counted as deferred), tasks RUNNING throughout, and records keep coming after every step (no stall: the
 * figures say how long each step took to show a new record).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { sleep, waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { type Simulator, startSimulator } from "../../src/sim/mod.ts";
import {
  type Arrival,
  collectArrivals,
  duplicateCount,
  faultSeconds,
  lineCount,
  linesSince,
  missingFinalVersions,
  printFigures,
  watchDaemon,
} from "./_helpers.ts";

const PASSWORD = "pw-Clock-Step-Lark-8";
const ROWS = 5_000;
const HOUR_MS = 3600_000;
/** The offsets (of the stepped clock from true time) held one after the other. */
const STEPS_MS = [HOUR_MS, 0, -HOUR_MS, 0];

const LIBFAKETIME = [
  "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1",
  "/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1",
  "/usr/lib/faketime/libfaketimeMT.so.1",
].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});

/** Writes the faketime offset atomically: the library must never read a half-written file. */
async function setFakeOffset(file: string, offsetMs: number): Promise<void> {
  const seconds = Math.round(offsetMs / 1000);
  await Deno.writeTextFile(`${file}.tmp`, `${seconds >= 0 ? "+" : ""}${seconds}\n`);
  await Deno.rename(`${file}.tmp`, file);
}

interface Clocked {
  name: string;
  sim: Simulator;
  topic: string;
  seen: Arrival[];
  daemon?: DaemonProcess;
  step(offsetMs: number): Promise<void>;
}

Deno.test("the host's and the instance's clocks stepped an hour forward and back: nothing lost, no stall", async () => {
  if (!LIBFAKETIME) {
    console.log("SKIPPED (host clock): libfaketime is not installed (apt-get install faketime)");
  }
  const holdMs = Math.max(20, faultSeconds() / 4) * 1000;
  await using kafka = await startKafkaBroker();
  const fakeFile = `${await Deno.makeTempDir({ prefix: "tablesync-faketime-" })}/offset`;
  await setFakeOffset(fakeFile, 0);
  const start = () => startSimulator({ port: 0, seed: { incident: ROWS }, users: [`admin:${PASSWORD}`] });
  const hostSim = await start();
  const instanceSim = await start();
  const clocks: Clocked[] = [
    ...(LIBFAKETIME
      ? [{
        name: "host-clock",
        sim: hostSim,
        topic: uniqueName("clock.host"),
        seen: [],
        step: (offsetMs: number) => setFakeOffset(fakeFile, offsetMs),
      }]
      : []),
    {
      name: "instance-clock",
      sim: instanceSim,
      topic: uniqueName("clock.instance"),
      seen: [],
      step: (offsetMs: number) => Promise.resolve(instanceSim.clock.setOffset(offsetMs)),
    },
  ];
  const readers = [];
  try {
    for (const c of clocks) {
      await kafka.createTopic(c.topic, 4);
      readers.push(await collectArrivals(kafka.bootstrapServers, c.topic, c.seen));
      const env: Record<string, string> = c.name === "host-clock"
        ? {
          LD_PRELOAD: LIBFAKETIME!,
          FAKETIME_TIMESTAMP_FILE: fakeFile,
          FAKETIME_CACHE_DURATION: "1",
          // An NTP step moves the wall clock only: timers and durations run on.
          FAKETIME_DONT_FAKE_MONOTONIC: "1",
        }
        : {};
      c.daemon = await startDaemonProcess({
        worker: { "bootstrap.servers": kafka.bootstrapServers, "offset.flush.interval.ms": 500 },
        connectors: [{
          name: c.name,
          config: sourceConnectorConfig(c.sim.url, PASSWORD, { incident: c.topic }, {
            "svc.table.incident.fields": "sys_id,sys_updated_on,number,state,sys_mod_count",
            "svc.source.batch.size": 500,
            "svc.source.poll.interval.ms": 500,
            "svc.source.startup.probe": false,
          }),
        }],
      }, { env });
    }
    for (const c of clocks) c.sim.writer.start({ rowsPerSecond: 20, insertRatio: 0.3 });
    await waitFor(() => clocks.every((c) => c.seen.length >= ROWS), 120_000, "backfills done, streaming");
    const marks = clocks.map((c) => lineCount(c.daemon!));
    const watches = clocks.map((c) => watchDaemon(c.daemon!, [c.name]));
    /** Per clock and step: ms from the step to the first record read after it. */
    const firstAfter: (number | null)[][] = clocks.map(() => []);
    /** Per clock and step: requests the instance saw while the step held (0: the source stalled). */
    const requests: number[][] = clocks.map(() => []);
    for (const offset of STEPS_MS) {
      const at = Date.now();
      const before = clocks.map((c) => c.sim.counters.requests);
      await Promise.all(clocks.map((c) => c.step(offset)));
      await sleep(holdMs);
      clocks.forEach((c, i) => requests[i].push(c.sim.counters.requests - before[i]));
      clocks.forEach((c, i) => {
        const first = c.seen.find((s) => s.at > at);
        firstAfter[i].push(first ? first.at - at : null);
      });
    }
    await sleep(10_000);
    for (const c of clocks) c.sim.writer.stop();
    await Promise.all(watches.map((w) => w.stop()));
    // Every clock's figures first, then the verdicts.
    const verdicts: (() => void)[] = [];
    for (const [i, c] of clocks.entries()) {
      const table = c.sim.table("incident");
      // A row stamped in what became the instance's future (written while its clock was an hour ahead, not read
      // before it was set back) is read when the instance's clock reaches its time again: deferred, not lost.
      const nowText = () => new Date(c.sim.clock.nowMs()).toISOString().replace("T", " ").slice(0, 19);
      const stampedAhead = (id: string) => String(table.get(id)!.sys_updated_on) > nowText();
      await waitFor(
        () => missingFinalVersions(table, c.seen).every(stampedAhead),
        150_000,
        `every row on ${c.topic}`,
      ).catch(() => {});
      const lines = linesSince(c.daemon!, marks[i], "");
      const states = [...watches[i].states.get(c.name)!];
      const missing = missingFinalVersions(table, c.seen);
      const deferred = missing.filter(stampedAhead);
      const lost = missing.filter((id) => !deferred.includes(id));
      printFigures({
        fault: c.name,
        mode: "at-least-once",
        faultSeconds: (holdMs * STEPS_MS.length) / 1000,
        rows: table.count,
        lost: lost.length,
        deferredUntilTheInstanceClockCatchesUp: deferred.length,
        duplicates: duplicateCount(c.seen),
        firstRecordAfterClearMs: firstAfter[i][firstAfter[i].length - 1],
        firstRecordAfterEachStepMs: firstAfter[i],
        instanceRequestsDuringEachStep: requests[i],
        tables: lost.length
          ? (await c.daemon!.request("GET", `/connectors/${c.name}/tables`)).body
          : undefined,
        states,
        peakRssMiB: Math.round(watches[i].peakRssKiB / 1024),
        logLines: lines.length,
        logLine: lines[0]?.slice(0, 300) ?? null,
      });
      verdicts.push(() => {
        assertEquals(
          lost.length,
          0,
          `${c.name}: rows lost, e.g. ${lost.slice(0, 3)}; log: ${lines.slice(0, 5)}`,
        );
        assertEquals(states, ["RUNNING"], `${c.name}: task states`);
        assert(
          firstAfter[i].every((ms) => ms !== null),
          `${c.name}: a step stalled the source: ${firstAfter[i]}`,
        );
      });
    }
    for (const verdict of verdicts) verdict();
  } finally {
    for (const c of clocks) c.sim.writer.stop();
    await Promise.all(clocks.map((c) => c.daemon?.stop("SIGTERM")));
    for (const r of readers) await r.disconnect();
    await hostSim.stop();
    await instanceSim.stop();
    await Deno.remove(fakeFile.replace(/\/offset$/, ""), { recursive: true });
  }
});
