/**
 * Collects garbage once when a task's isolate goes quiet after a burst of work (the end of a backfill, of a sink
 * catch-up), so the memory of that burst goes back to the OS instead of staying resident while the task idles.
 *
 * V8 collects when allocation asks for it, so after a burst the garbage of its last pages (page bodies, records,
 * their bytes: tens of MB of heap and ArrayBuffers) stayed until the next burst; measured 5 s after a
 * 100,000-row backfill, the task's isolate still held 57 MB of heap and 47 MB of ArrayBuffers, where about
 * 27 MB of heap and 1 MB of ArrayBuffers were live. V8's own memory reducer starts only 30 s after a collection
 * and did not lower it either.
 *
 * Quiet means both: allocation changed little between two looks, and the task counted no work (its metrics) in
 * between; allocation alone misread a busy sink as quiet (see `activity`).
 *
 * Needs V8's gc function, which the daemon's V8 flags expose under `COLLECT_GARBAGE_NAME` (v8_flags.ts; not as
 * `gc`, so code that looks for `gc` is not changed by it); without it this does nothing. The collection is V8's
 * "last resort" one (everything collectable, pooled pages released); malloc's free pages follow at the next trim
 * (native_memory.ts).
 */

import { COLLECT_GARBAGE_NAME } from "../../common/gc_global.ts";

export interface IdleCollectionOptions {
  /** How often allocation is looked at. Default 500 ms. */
  readonly everyMs?: number;
  /** A change of heap + ArrayBuffers of at least this between two looks is a burst. Default 8 MB. */
  readonly busyBytes?: number;
  /** A change of less than this after a burst is quiet: collect. Default 1 MB. */
  readonly quietBytes?: number;
  /**
   * A count that grows while the task works (its metrics' increments): a look after which it grew is never
   * quiet. Allocation alone cannot tell: while a sink writes a few hundred records a second, its young
   * collections often leave two looks less than `quietBytes` apart, and the collection (a last-resort one:
   * 0.1–0.9 s on a loaded machine) then froze the task in the middle of its writes.
   */
  readonly activity?: () => number;
}

type CollectGarbage = (options?: { type?: string; execution?: string; flavor?: string }) => void;

/** Starts watching; returns a stopper. Does nothing (and returns a no-op) when gc is not exposed. */
export function collectWhenQuiet(
  options: IdleCollectionOptions = {},
  collect: CollectGarbage | undefined = (globalThis as Record<string, unknown>)[COLLECT_GARBAGE_NAME] as
    | CollectGarbage
    | undefined,
  usage: () => number = allocated,
): () => void {
  if (typeof collect !== "function") return () => {};
  const busyBytes = options.busyBytes ?? 8 * 1024 * 1024;
  const quietBytes = options.quietBytes ?? 1024 * 1024;
  const activity = options.activity ?? (() => 0);
  let last = usage();
  let lastWork = activity();
  let busy = false;
  const timer = setInterval(() => {
    const now = usage();
    const change = Math.abs(now - last);
    last = now;
    const work = activity();
    const worked = work !== lastWork;
    lastWork = work;
    if (change >= busyBytes) busy = true;
    else if (busy && change < quietBytes && !worked) {
      busy = false;
      collect({ type: "major", execution: "sync", flavor: "last-resort" });
      last = usage();
    }
  }, options.everyMs ?? 500);
  // Watching must never keep a thread alive.
  Deno.unrefTimer(timer as unknown as number);
  return () => clearInterval(timer);
}

function allocated(): number {
  const m = Deno.memoryUsage();
  return m.heapUsed + m.external;
}
