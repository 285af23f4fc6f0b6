/** Per-key ordering with a cap on jobs in flight. */
import { assert, assertEquals } from "../support/assert.ts";
import { KeyScheduler } from "../../src/sink/key_scheduler.ts";

/** A job that only finishes when the test releases it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => open = resolve);
  return { promise, open };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("jobs of one key run in submission order, one at a time, even when an earlier one fails", async () => {
  const scheduler = new KeyScheduler(4);
  const order: string[] = [];
  const first = gate();
  const a1 = scheduler.run("a", async () => {
    order.push("a1 start");
    await first.promise;
    order.push("a1 end");
    throw new Error("a1 failed");
  });
  const a2 = scheduler.run("a", () => {
    order.push("a2");
    return Promise.resolve();
  });
  const b1 = scheduler.run("b", () => {
    order.push("b1");
    return Promise.resolve();
  });
  await tick();
  // b1 did not wait for key a; a2 did.
  assertEquals(order, ["a1 start", "b1"]);
  first.open();
  await a1.catch(() => {});
  await Promise.all([a2, b1]);
  assertEquals(order, ["a1 start", "b1", "a1 end", "a2"]);
  assertEquals(scheduler.pendingKeys, 0);
});

Deno.test("no more than maxInFlight jobs run at once, and every job runs", async () => {
  const scheduler = new KeyScheduler(3);
  let running = 0;
  let peak = 0;
  const gates = Array.from({ length: 10 }, gate);
  const jobs = gates.map((g, i) =>
    scheduler.run(i % 2 === 0 ? `k${i}` : null, async () => {
      running++;
      peak = Math.max(peak, running);
      await g.promise;
      running--;
      return i;
    })
  );
  await tick();
  assertEquals(scheduler.running, 3);
  for (const g of gates) {
    g.open();
    await tick();
  }
  assertEquals(await Promise.all(jobs), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assertEquals(peak, 3);
  assert(scheduler.running === 0);
});

Deno.test("a key waiting for its predecessor holds no slot", async () => {
  const scheduler = new KeyScheduler(1);
  const g = gate();
  const done: string[] = [];
  const a1 = scheduler.run("a", async () => {
    await g.promise;
    done.push("a1");
  });
  const a2 = scheduler.run("a", () => Promise.resolve(void done.push("a2")));
  const b = scheduler.run("b", () => Promise.resolve(void done.push("b")));
  g.open();
  await Promise.all([a1, a2, b]);
  // With a single slot: a1, then b (queued for a slot before a2 was allowed to ask), then a2 — no deadlock.
  assertEquals(done.length, 3);
  assertEquals(done[0], "a1");
  assert(done.indexOf("a2") > done.indexOf("a1"));
});
