import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { PermitPool, PermitWaitTimeout } from "../../src/instance/permit_pool.ts";
import { createSharedHostState } from "../../src/instance/shared_host_state.ts";
import { RECOVERY_SUCCESSES } from "../../src/instance/adaptive_limit.ts";
import {
  exportPermitPools,
  instanceMetrics,
  permitPoolFor,
  reclaimPermits,
} from "../../src/instance/permit_registry.ts";
import { uniqueHost } from "./_helpers.ts";

const newPool = (max: number) => new PermitPool(createSharedHostState(max));

Deno.test("permit pool: never more than the limit held; release is idempotent", () => {
  const pool = newPool(2);
  const a = pool.tryAcquire();
  const b = pool.tryAcquire();
  assert(a && b);
  assertEquals(pool.tryAcquire(), null);
  a.release();
  a.release();
  assertEquals(pool.inFlight, 1);
  const c = pool.tryAcquire();
  assert(c);
  assertEquals(pool.tryAcquire(), null);
  b.release();
  c.release();
  assertEquals(pool.inFlight, 0);
});

Deno.test("permit pool: a waiter gets the permit released by another holder", async () => {
  const pool = newPool(1);
  const held = pool.tryAcquire()!;
  let acquired = false;
  const waiting = pool.acquire(Date.now() + 5000).then((p) => {
    acquired = true;
    return p;
  });
  await new Promise((r) => setTimeout(r, 20));
  assertEquals(acquired, false);
  held.release();
  const permit = await waiting;
  assertEquals(pool.inFlight, 1);
  permit.release();
});

Deno.test("permit pool: a caller that releases and re-acquires at once does not overtake a sleeper", async () => {
  const pool = newPool(1);
  const order: string[] = [];
  const first = await pool.acquire(Date.now() + 5000);
  const sleeper = pool.acquire(Date.now() + 5000).then((p) => (order.push("sleeper"), p));
  await new Promise((r) => setTimeout(r, 10));
  first.release();
  const again = pool.acquire(Date.now() + 5000).then((p) => (order.push("re-acquirer"), p));
  (await sleeper).release();
  (await again).release();
  assertEquals(order, ["sleeper", "re-acquirer"]);
});

Deno.test("permit pool: waiting past the deadline fails with PermitWaitTimeout", async () => {
  const pool = newPool(1);
  const held = pool.tryAcquire()!;
  const started = Date.now();
  await assertRejects(
    () => pool.acquire(Date.now() + 50),
    PermitWaitTimeout,
    "no request permit free within",
  );
  assert(Date.now() - started >= 45);
  held.release();
});

Deno.test("permit pool: abort rejects the waiter with the signal's reason", async () => {
  const pool = newPool(1);
  const held = pool.tryAcquire()!;
  const controller = new AbortController();
  const waiting = pool.acquire(Date.now() + 10_000, controller.signal);
  setTimeout(() => controller.abort(new Error("task stopping")), 10);
  await assertRejects(() => waiting, Error, "task stopping");
  assertEquals(pool.inFlight, 1);
  held.release();
});

Deno.test("adaptive limit: each 429 halves, never below one; 50 successes give one back, never above max", () => {
  const pool = newPool(8);
  assertEquals([pool.throttled(), pool.throttled(), pool.throttled(), pool.throttled()], [4, 2, 1, 1]);
  for (let i = 1; i < RECOVERY_SUCCESSES; i++) assertEquals(pool.succeeded(), 1);
  assertEquals(pool.succeeded(), 2);
  // A 429 restarts the recovery count.
  for (let i = 0; i < RECOVERY_SUCCESSES - 1; i++) pool.succeeded();
  assertEquals(pool.throttled(), 1);
  for (let i = 0; i < RECOVERY_SUCCESSES - 1; i++) pool.succeeded();
  assertEquals(pool.limit, 1);
  for (let i = 0; i < 10 * RECOVERY_SUCCESSES; i++) pool.succeeded();
  assertEquals(pool.limit, 8);
  pool.succeeded();
  assertEquals(pool.limit, 8);
});

Deno.test("adaptive limit: a lowered limit holds back new permits until holders release", async () => {
  const pool = newPool(4);
  const permits = [pool.tryAcquire()!, pool.tryAcquire()!, pool.tryAcquire()!];
  pool.throttled(); // limit 2, 3 held
  assertEquals(pool.tryAcquire(), null);
  permits[0].release();
  assertEquals(pool.tryAcquire(), null, "2 held, limit 2");
  const waiter = pool.acquire(Date.now() + 5000);
  permits[1].release();
  (await waiter).release();
  permits[2].release();
});

Deno.test("registry: one pool per lower-cased host; the smaller max wins", () => {
  const host = uniqueHost("Registry");
  const a = permitPoolFor(host, 6);
  const b = permitPoolFor(host.toUpperCase(), 6);
  assert(a === b);
  permitPoolFor(host, 3);
  assertEquals([a.max, a.limit], [3, 3]);
  const metrics = instanceMetrics().find((m) => m.host === host.toLowerCase());
  assertEquals(metrics?.maxConcurrent, 3);
});

Deno.test("permit pool shared by two workers: concurrent holders never exceed the limit", async () => {
  const host = uniqueHost("workers");
  const max = 3;
  permitPoolFor(host, max);
  const holders = new SharedArrayBuffer(8);
  const workers = [0, 1].map(() =>
    new Worker(new URL("./_permit_worker.ts", import.meta.url), { type: "module" })
  );
  try {
    await Promise.all(workers.map((worker) =>
      new Promise<void>((resolve, reject) => {
        worker.onmessage = () => resolve();
        worker.onerror = (e) => {
          e.preventDefault();
          reject(new Error(e.message));
        };
        worker.postMessage({ pools: exportPermitPools(), host, max, loops: 4, rounds: 25, holders });
      })
    ));
  } finally {
    workers.forEach((w) => w.terminate());
  }
  const [current, peak] = new Int32Array(holders);
  assertEquals(current, 0);
  assertEquals(peak, max, "the limit is reached (8 loops compete) and never passed");
  const metrics = instanceMetrics().find((m) => m.host === host)!;
  assertEquals([metrics.inFlight, metrics.peakInFlight], [0, max]);
  assert(metrics.permitsWaited > 0, "the workers had to wait for each other");
});

Deno.test("registry: permits held by a terminated worker are reclaimed by the main thread", async () => {
  const host = uniqueHost("reclaim");
  const pool = permitPoolFor(host, 2);
  const transfer = exportPermitPools();
  assert(transfer.realm > 0);
  const worker = new Worker(new URL("./_holding_worker.ts", import.meta.url), { type: "module" });
  await new Promise<void>((resolve) => {
    worker.onmessage = () => resolve();
    worker.postMessage({ pools: transfer, host, hold: 2 });
  });
  worker.terminate();
  const before = instanceMetrics().find((m) => m.host === host)!;
  assertEquals([before.inFlight, before.waiting], [2, 1], "the dead worker still holds 2 and queues for 1");
  assertEquals(pool.tryAcquire(), null);
  assertEquals(reclaimPermits(transfer.realm), 2);
  const after = instanceMetrics().find((m) => m.host === host)!;
  assertEquals([after.inFlight, after.waiting], [0, 0]);
  const permit = await pool.acquire(Date.now() + 1000);
  permit.release();
});
