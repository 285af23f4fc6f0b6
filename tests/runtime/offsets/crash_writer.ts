/**
 * Child process of crash_test.ts: writes offsets through the file store in a tight loop until killed.
 *
 * Usage: deno run --allow-read --allow-write --allow-env --allow-sys crash_writer.ts <offsets file> <partitions>
 *
 * Every write moves all partitions to the same generation `n`; partition "gone" exists only when n is odd,
 * so a snapshot mixing two writes, or a half-applied tombstone, is visible to the parent. Prints
 * `durable <n>` on stdout once flush() for generation n resolved, `ready` after the first one.
 */
import { FileOffsetStore } from "../../../src/runtime/offsets/file_store.ts";
import type { OffsetUpdate } from "../../../src/runtime/offsets/types.ts";

export const CRASH_CONNECTOR = "crash-test";

/** The updates that make generation n (shared with the parent's checks). */
export function generationUpdates(n: number, partitions: number): OffsetUpdate[] {
  const updates: OffsetUpdate[] = [];
  for (let p = 0; p < partitions; p++) {
    updates.push({
      partition: { table: `t${p}`, shard: p },
      offset: { n, cursor: `2024-10-01 12:00:${p}`, done: false },
    });
  }
  updates.push({ partition: { table: "gone" }, offset: n % 2 === 1 ? { n } : null });
  return updates;
}

if (import.meta.main) {
  const [path, partitionsArg] = Deno.args;
  const partitions = Number(partitionsArg);
  const store = new FileOffsetStore({ path, flushDelayMs: 60_000 });
  await store.start();
  const stored = store.get(CRASH_CONNECTOR, { table: "t0", shard: 0 });
  let n = typeof stored?.n === "number" ? stored.n : 0;
  const out = (line: string) => Deno.stdout.writeSync(new TextEncoder().encode(line + "\n"));
  let first = true;
  for (;;) {
    n++;
    store.set(CRASH_CONNECTOR, generationUpdates(n, partitions));
    await store.flush();
    out(`durable ${n}`);
    if (first) out("ready");
    first = false;
  }
}
