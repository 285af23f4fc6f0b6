/**
 * "100 kill -9 at random instants during offset writes never leave an unreadable offsets file."
 *
 * A child process (crash_writer.ts) writes offsets through the file store in a tight loop; the test kills it
 * with SIGKILL at a random instant, then loads the file and checks that it is readable and holds exactly one
 * generation the child wrote: not older than the last flush() the child saw resolve (durability), not newer
 * than the one it was writing, and never a mix (atomicity). Most kills land while writes are running; every
 * fifth lands at a random instant from the child's spawn, to cover start-up (leftover cleanup, first read).
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import { FileOffsetStore } from "../../../src/runtime/offsets/file_store.ts";
import { CRASH_CONNECTOR, generationUpdates } from "./crash_writer.ts";
import { readLines } from "../../support/read_lines.ts";
import { sleep } from "../../support/wait.ts";

setLogLevel("error");

const KILLS = 100;
const PARTITIONS = 40;
const WRITER = new URL("./crash_writer.ts", import.meta.url).pathname;

Deno.test("kill -9 at random instants during offset writes never leaves an unreadable offsets file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "offsets-crash-" });
  const path = `${dir}/offsets.json`;
  const figures = { kills: 0, readable: 0, leftoverTempFiles: 0, killedDuringStartup: 0, lastGeneration: 0 };
  let loaded = 0;
  try {
    for (let kill = 0; kill < KILLS; kill++) {
      const duringStartup = kill % 5 === 4;
      const durable = await runAndKill(path, duringStartup);
      figures.kills++;
      if (duringStartup && durable === null) figures.killedDuringStartup++;

      figures.leftoverTempFiles += await countTempFiles(dir);
      const n = await loadGeneration(path); // throws when the file is unreadable or inconsistent
      figures.readable++;
      const confirmed = Math.max(loaded, durable ?? 0);
      assert(n >= confirmed, `kill ${kill}: loaded generation ${n} is older than the durable ${confirmed}`);
      assert(
        n <= confirmed + 1,
        `kill ${kill}: loaded generation ${n} was never written (last durable ${confirmed})`,
      );
      loaded = n;
    }
    figures.lastGeneration = loaded;
    console.log(`crash test figures: ${JSON.stringify(figures)}`);
    // Each child that reached "ready" made at least one durable write, so the generations must have moved on.
    assert(loaded >= KILLS - KILLS / 5, `only ${loaded} generations were written in ${KILLS} runs`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Runs one writer and kills it; returns the last generation it reported durable, or null if none. */
async function runAndKill(path: string, duringStartup: boolean): Promise<number | null> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-sys",
      WRITER,
      path,
      String(PARTITIONS),
    ],
    env: { TABLESYNC_LOG_LEVEL: "error", NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const lines = readLines(child.stdout);
  let durable: number | null = null;
  const onLine = (line: string) => {
    const match = /^durable (\d+)$/.exec(line);
    if (match) durable = Number(match[1]);
  };

  if (duringStartup) {
    await sleep(Math.random() * 300);
  } else {
    for (;;) {
      const { value, done } = await lines.next();
      if (done) throw new Error(`writer exited before it was ready: ${await stderr}`);
      onLine(value);
      if (value === "ready") break;
    }
    await sleep(Math.random() * 30);
  }
  child.kill("SIGKILL");
  for await (const line of lines) onLine(line);
  const status = await child.status;
  await stderr;
  assertEquals(status.signal, "SIGKILL", "the writer must die by the kill, not on its own");
  return durable;
}

/** Loads the file with the store, checks it holds one whole generation and returns it (0 when empty). */
async function loadGeneration(path: string): Promise<number> {
  try {
    await Deno.stat(path);
  } catch {
    return 0; // killed before the first child ever wrote the file
  }
  const store = new FileOffsetStore({ path });
  await store.start();
  try {
    const entries = store.getAll(CRASH_CONNECTOR);
    if (entries.length === 0) return 0;
    const n = store.get(CRASH_CONNECTOR, { table: "t0", shard: 0 })?.n;
    assert(typeof n === "number", `no generation in ${JSON.stringify(entries)}`);
    const expected = generationUpdates(n, PARTITIONS).filter((u) => u.offset !== null);
    assertEquals(
      sortEntries(entries),
      sortEntries(expected.map((u) => ({ partition: u.partition, offset: u.offset! }))),
      `the file mixes generations or half-applies the tombstone (generation ${n})`,
    );
    return n;
  } finally {
    await store.close();
  }
}

function sortEntries<T extends { partition: unknown }>(entries: T[]): T[] {
  return [...entries].sort((a, b) => JSON.stringify(a.partition).localeCompare(JSON.stringify(b.partition)));
}

async function countTempFiles(dir: string): Promise<number> {
  let n = 0;
  for await (const entry of Deno.readDir(dir)) if (entry.name.includes(".tmp-")) n++;
  return n;
}
