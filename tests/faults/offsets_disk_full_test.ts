/**
 * The offsets file's file system full under a running source (backfill and a writer in flight): a small tmpfs
 * holds offset.storage.file.filename, the test fills it for FAULT_SECONDS, kills the daemon (kill -9) half-way and
 * starts it again on the full disk, then gives the space back. The file is never corrupt nor empty (it keeps its
 * last offsets: writes are atomic), the task stays RUNNING, the daemon logs one line per spell (not one per
 * retry), offsets are committed again once there is space, and no row is lost.
 *
 * Needs `mount -t tmpfs` (root, or a container allowed to mount): skipped with a message otherwise.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { sleep, waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";
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

const PASSWORD = "pw-Disk-Full-Wren-2";
const ROWS = 20_000;

async function run(command: string, ...args: string[]): Promise<{ ok: boolean; text: string }> {
  const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
  return { ok: out.success, text };
}

/** Mounts a tmpfs of `size` at a new directory; null (with the reason printed) when mounting is not allowed. */
async function mountTmpfs(size: string): Promise<string | null> {
  const dir = await Deno.makeTempDir({ prefix: "tablesync-tmpfs-" });
  const mounted = await run("mount", "-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir);
  if (mounted.ok) return dir;
  await Deno.remove(dir);
  console.log(`SKIPPED: mount -t tmpfs is not permitted here (${mounted.text.trim()})`);
  return null;
}

/** Fills the file system of `dir` to the last byte with a filler file; returns its path. */
async function fill(dir: string): Promise<string> {
  const path = `${dir}/filler`;
  const file = await Deno.open(path, { write: true, create: true });
  const chunk = new Uint8Array(64 * 1024);
  try {
    for (let size = chunk.length; size > 0; size = Math.floor(size / 2)) {
      for (;;) {
        try {
          await file.write(chunk.subarray(0, size));
        } catch {
          break;
        }
      }
    }
  } finally {
    file.close();
  }
  return path;
}

Deno.test("the offsets file's disk full for minutes, kill -9 on it: file intact, task RUNNING, nothing lost", async () => {
  const tmpfs = await mountTmpfs("2m");
  if (tmpfs === null) return;
  const seconds = faultSeconds();
  const sim = await startSimulator({ port: 0, seed: { incident: ROWS }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("diskfull.incident");
  await kafka.createTopic(topic, 4);
  const offsetsPath = `${tmpfs}/offsets.json`;
  const config = {
    worker: {
      "bootstrap.servers": kafka.bootstrapServers,
      "offset.flush.interval.ms": 500,
      "offset.storage.file.filename": offsetsPath,
    },
    connectors: [{
      name: "diskfull",
      config: sourceConnectorConfig(sim.url, PASSWORD, { incident: topic }, {
        "svc.table.incident.fields": "sys_id,sys_updated_on,number,state,sys_mod_count",
        "svc.source.batch.size": 1000,
        "svc.source.poll.interval.ms": 500,
        "svc.source.startup.probe": false,
      }),
    }],
  };
  const seen: Arrival[] = [];
  const reader = await collectArrivals(kafka.bootstrapServers, topic, seen);
  let daemon: DaemonProcess | undefined;
  let filler: string | undefined;
  try {
    daemon = await startDaemonProcess(config);
    sim.writer.start({ rowsPerSecond: 20, insertRatio: 0.3 });
    await waitFor(() => seen.length >= ROWS / 10, 120_000, "the backfill under way");
    await waitFor(
      async () => (await Deno.readTextFile(offsetsPath)).includes("diskfull"),
      30_000,
      "a first commit",
    );

    const firstMark = lineCount(daemon);
    filler = await fill(tmpfs);
    // What a write in flight when the disk filled may still have put there: the file from now on.
    await sleep(2000);
    const atFull = await Deno.readTextFile(offsetsPath);
    const checks: string[] = [];
    /** The file as it must stay while the disk is full: the same, parseable, with this connector's offsets. */
    const checkFile = async () => {
      const text = await Deno.readTextFile(offsetsPath);
      if (text !== atFull) checks.push(`changed (${text.length} bytes)`);
      JSON.parse(text);
    };
    const processes: { daemon: DaemonProcess; mark: number }[] = [{ daemon, mark: firstMark }];
    const watches = [watchDaemon(daemon, ["diskfull"])];
    const started = Date.now();
    let killed = false;
    while (Date.now() - started < seconds * 1000) {
      await checkFile();
      if (!killed && Date.now() - started >= seconds * 500) {
        // Half-way: kill -9 and start again on the full disk, from the file as it is.
        killed = true;
        await watches[0].stop();
        await daemon.stop("SIGKILL");
        await checkFile();
        daemon = await startDaemonProcess(config, { dir: daemon.dir });
        processes.push({ daemon, mark: 0 });
        watches.push(watchDaemon(daemon, ["diskfull"]));
      }
      await sleep(1000);
    }
    await Deno.remove(filler);
    filler = undefined;
    const cleared = Date.now();
    await waitFor(
      async () => (await Deno.readTextFile(offsetsPath)) !== atFull,
      60_000,
      "offsets committed again",
    );
    const committedAfterMs = Date.now() - cleared;
    await watches[1].stop();
    await sleep(5000);
    sim.writer.stop();
    const table = sim.table("incident");
    await waitFor(() => missingFinalVersions(table, seen).length === 0, 180_000, "every final row version")
      .catch((e) => {
        throw new Error(
          `${e.message}: ${missingFinalVersions(table, seen).length} missing; ${daemon!.output()}`,
        );
      });
    const states = [...new Set(watches.flatMap((w) => [...w.states.get("diskfull")!]))];
    // Per process: its failing writes, logged as they start (a line) and not per retry.
    const lines = processes.map(({ daemon, mark }) => linesSince(daemon, mark, "offsets file"));
    printFigures({
      fault: "offsets-disk-full",
      mode: "at-least-once",
      faultSeconds: seconds,
      rows: table.count,
      lost: missingFinalVersions(table, seen).length,
      duplicates: duplicateCount(seen),
      firstRecordAfterClearMs: seen.find((s) => s.at > cleared)!.at - cleared,
      offsetsCommittedAfterClearMs: committedAfterMs,
      states,
      peakRssMiB: Math.round(Math.max(...watches.map((w) => w.peakRssKiB)) / 1024),
      logLines: lines.reduce((n, l) => n + l.length, 0),
      logLine: lines[0][0] ?? null,
    });
    assertEquals(checks, [], "the offsets file changed while the disk was full");
    // UNASSIGNED: the restarted daemon's task before it started.
    assertEquals(
      states.filter((s) => s !== "UNASSIGNED"),
      ["RUNNING"],
      "the task stays RUNNING while the offsets file cannot be written",
    );
    // The restarted process may start its first write only after the space is back: at most one line each.
    for (const l of lines) assert(l.length <= 1, `one line per spell, not per retry:\n${l.join("\n")}`);
    assert(lines[0].length === 1, "the full disk was not logged");
  } finally {
    sim.writer.stop();
    if (filler) await Deno.remove(filler).catch(() => {});
    await daemon?.stop("SIGTERM");
    await reader.disconnect();
    await sim.stop();
    await run("umount", tmpfs);
    await Deno.remove(tmpfs, { recursive: true }).catch(() => {});
  }
});
