import { assert, assertEquals } from "../support/assert.ts";
import { OpenTransactionClock } from "../../src/kafka/open_transaction_clock.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("open transaction clock: open past the timeout while the process ran throughout: a timeout", async () => {
  const clock = new OpenTransactionClock({ tickMs: 10, stallMs: 200 });
  assertEquals(clock.openPastWhileRunning(100), false, "no transaction open");
  clock.start();
  await sleep(150);
  assert(clock.openMs() >= 140, `open ${clock.openMs()} ms`);
  assertEquals(clock.openPastWhileRunning(100), true);
  assertEquals(clock.openPastWhileRunning(10_000), false, "not yet past a longer timeout");
  clock.stop();
  assertEquals(clock.openPastWhileRunning(100), false, "ended");
  assertEquals(clock.openMs(), 0);
});

Deno.test("open transaction clock: a process that stalled while the transaction was open is not taken for a timeout", async () => {
  const clock = new OpenTransactionClock({ tickMs: 10, stallMs: 200 });
  clock.start();
  await sleep(30);
  // The event loop held for longer than stallMs, as a frozen process (SIGSTOP, a paused VM) is.
  const until = performance.now() + 250;
  while (performance.now() < until) { /* held */ }
  assertEquals(clock.openPastWhileRunning(100), false, "the stall, up to now, counts");
  await sleep(30);
  assertEquals(clock.openPastWhileRunning(100), false, "the stall, once ticked past, still counts");
  clock.start();
  await sleep(150);
  assertEquals(clock.openPastWhileRunning(100), true, "a new transaction starts clean");
  clock.stop();
});
