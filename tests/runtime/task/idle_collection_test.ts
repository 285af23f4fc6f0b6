/** Collecting garbage once when a task's isolate goes quiet after a burst (src/runtime/task/idle_collection.ts). */
import { assertEquals } from "../../support/assert.ts";
import { collectWhenQuiet } from "../../../src/runtime/task/idle_collection.ts";

/**
 * Runs a watch every 5 ms over `looks` (allocated bytes at each look; the last one repeats) until a few looks past
 * the end. `collected` gets the look at which a collection ran; `work` gives the task's work count at a look.
 */
async function replayLooks(
  looks: number[],
  collected: (look: number, options: unknown) => void,
  work?: (look: number) => number,
): Promise<void> {
  let i = 0;
  const { promise: done, resolve } = Promise.withResolvers<void>();
  const stop = collectWhenQuiet(
    // Read after the look's usage (which advanced i): the work count at the same look.
    { everyMs: 5, activity: work && (() => work(Math.max(i - 1, 0))) },
    (options) => collected(i, options),
    () => {
      const value = looks[Math.min(i, looks.length - 1)];
      if (i++ >= looks.length + 2) resolve();
      return value;
    },
  );
  // The watch's timer does not keep the test alive (it never keeps a thread alive).
  const alive = setTimeout(() => {}, 10_000);
  await done;
  clearTimeout(alive);
  stop();
}

Deno.test("idle collection: one collection when a burst of allocation is followed by a quiet look, none otherwise", async () => {
  const MB = 1024 * 1024;
  // Allocated bytes at each look: quiet, a burst, quiet (collect), quiet (already collected), small changes.
  const looks = [0, 0, 20 * MB, 40 * MB, 40.5 * MB, 40.5 * MB, 40.6 * MB, 41 * MB, 41 * MB];
  const collections: unknown[] = [];
  await replayLooks(looks, (at, options) => collections.push({ at, ...(options as object) }));
  // Looks 0 (start), 1, 2, 3 (burst), 4: quiet after the burst; the collection reads usage once more (look 5).
  assertEquals(collections, [{ at: 5, type: "major", execution: "sync", flavor: "last-resort" }]);
});

Deno.test("idle collection: a look with little allocation is not quiet while the task's work count grows", async () => {
  const MB = 1024 * 1024;
  // A burst, then allocation that changes little between looks (young collections) while work goes on
  // (looks 3–6), then no more work (look 7 onwards).
  const looks = [0, 20 * MB, 20.5 * MB, 20.2 * MB, 20.6 * MB, 20.3 * MB, 20.4 * MB, 20.4 * MB, 20.4 * MB];
  const work = [0, 5, 10, 15, 20, 25, 30, 30, 30];
  const collections: number[] = [];
  await replayLooks(looks, (at) => collections.push(at), (at) => work[Math.min(at, work.length - 1)]);
  // Looks 2–6 changed by less than 1 MB, but work was counted before each; look 7 is the first quiet one (the
  // collection then reads usage once more: look 8).
  assertEquals(collections, [8]);
});

Deno.test("idle collection: without V8's gc exposed it does nothing", async () => {
  // This test process runs without the daemon's V8 flags: the default (the exposed gc) is absent.
  let looks = 0;
  const stop = collectWhenQuiet({ everyMs: 1 }, undefined, () => looks++);
  await new Promise((resolve) => setTimeout(resolve, 20));
  stop();
  assertEquals(looks, 0, "no watch started");
});
