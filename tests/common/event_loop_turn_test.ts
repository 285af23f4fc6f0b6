/** EventLoopTurns: a loop on microtasks alone gives timers and I/O a turn once it ran its interval. */
import { assert, assertEquals } from "../support/assert.ts";
import { EventLoopTurns } from "../../src/common/event_loop_turn.ts";

Deno.test("EventLoopTurns: no turn while the loop has run less than its interval", () => {
  assertEquals(new EventLoopTurns(60_000).take(), undefined);
});

Deno.test("EventLoopTurns: a loop that only awaits resolved promises lets a due timer run", async () => {
  const turns = new EventLoopTurns(2);
  let fired = false;
  setTimeout(() => fired = true, 0);
  // Without the turns, this loop never leaves the microtask queue: the timer fires only after all rounds.
  let rounds = 0;
  for (; rounds < 2_000_000 && !fired; rounds++) {
    await Promise.resolve();
    await turns.take();
  }
  assert(fired && rounds < 2_000_000, `the timer ran only after ${rounds} rounds`);
});
