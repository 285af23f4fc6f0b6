/**
 * The permit pool and adaptive throttling against the simulator through real sockets: the simulator counts
 * the requests in flight, so these tests measure what the instance actually sees.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { TableClient } from "../../src/instance/table_client.ts";
import { exportPermitPools, instanceMetrics, permitPoolFor } from "../../src/instance/permit_registry.ts";
import { parseInstanceUrl } from "../../src/instance/instance_url.ts";
import { RECOVERY_SUCCESSES } from "../../src/instance/adaptive_limit.ts";
import { testSettings } from "./_helpers.ts";

const USER = { userName: "integration", password: "sim-Password-77" };
const auth = { type: "basic" as const, username: USER.userName, password: USER.password };

Deno.test("two connectors in two workers share one instance's permits: in flight never above the limit", async () => {
  const sim = await startSimulator({ seed: { incident: 20, problem: 20 }, users: [USER], latencyMs: 15 });
  const limit = 4;
  const options = testSettings(sim.url, { auth, http: { maxConcurrentRequests: limit } });
  // The main thread creates the host's pool before starting the task threads, as the runtime does.
  permitPoolFor(parseInstanceUrl(sim.url).host, limit);
  const workers = ["incident", "problem"].map(() =>
    new Worker(new URL("./_table_worker.ts", import.meta.url), { type: "module" })
  );
  try {
    const results = await Promise.all(
      workers.map((worker, i) =>
        new Promise<{ ok: boolean; rows?: number; error?: string }>((resolve, reject) => {
          worker.onmessage = (e) => resolve(e.data);
          worker.onerror = (e) => {
            e.preventDefault();
            reject(new Error(e.message));
          };
          worker.postMessage({
            pools: exportPermitPools(),
            options,
            table: i === 0 ? "incident" : "problem",
            concurrency: 6,
            requests: 60,
          });
        })
      ),
    );
    assertEquals(results.map((r) => r.ok), [true, true], JSON.stringify(results));
    assertEquals(sim.counters.requests, 120);
    console.log(
      `max in flight seen by the simulator: ${sim.counters.maxInFlight} (limit ${limit}, 12 loops competing)`,
    );
    assertEquals(sim.counters.maxInFlight, limit, "12 competing loops reach the limit and never pass it");
    const metrics = instanceMetrics().find((m) => m.host === parseInstanceUrl(sim.url).host)!;
    assertEquals(metrics.requestsByStatus, { "200": 120 });
    assertEquals(metrics.peakInFlight, limit);
    assert(metrics.permitsWaited > 0);
  } finally {
    workers.forEach((w) => w.terminate());
    await sim.stop();
  }
});

Deno.test("a 429 storm halves the limit down to one; 50 successes per permit bring it back to the maximum", async () => {
  const sim = await startSimulator({ seed: { incident: 20 }, users: [USER], latencyMs: 5 });
  const max = 8;
  const client = await TableClient.create(
    testSettings(sim.url, {
      auth,
      http: { maxConcurrentRequests: max },
      retry: { maxAttempts: 10, initialBackoffMs: 5, maxBackoffMs: 20 },
    }),
  );
  try {
    // The storm: eight requests at once, the first eight answers are 429 (no Retry-After: semaphore-style).
    sim.faults.add({ route: "GET /api/now/table/incident", fault: { kind: "busy" }, times: 8 });
    const limits: number[] = [];
    const list = async () => {
      await client.list("incident", { limit: 1, fields: ["sys_id"] });
      limits.push(client.http.pool.limit);
    };
    await Promise.all(Array.from({ length: 8 }, list));
    const metrics = () => instanceMetrics().find((m) => m.host === client.instance.host)!;
    assertEquals(metrics().requestsByStatus["429"], 8);
    assertEquals([metrics().lowestLimit, client.http.pool.limit], [1, 1]);
    console.log(`limit after 8 x 429: ${client.http.pool.limit} (lowest ${metrics().lowestLimit})`);

    // At limit one, even 30 concurrent callers reach the instance one at a time.
    sim.counters.reset();
    await Promise.all(Array.from({ length: 30 }, list));
    assertEquals(sim.counters.maxInFlight, 1, "throttled to one request in flight");

    // Recovery: one permit back per 50 successes, up to the maximum and no further.
    const successesSoFar = 8 + 30;
    const needed = (max - 1) * RECOVERY_SUCCESSES - successesSoFar;
    sim.counters.reset();
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (limits.length < 38 + needed + 40) await list();
    }));
    assertEquals(client.http.pool.limit, max);
    assert(sim.counters.maxInFlight <= max, `max in flight ${sim.counters.maxInFlight}`);
    // The limit rose one step at a time, every 50 successes (give or take the callers whose success was
    // recorded while another's was being counted).
    for (let value = 2; value <= max; value++) {
      const seenAt = limits.indexOf(value) + 1;
      const expected = (value - 1) * RECOVERY_SUCCESSES;
      assert(
        Math.abs(seenAt - expected) <= max,
        `limit ${value} first seen after ${seenAt} successes, expected ~${expected}`,
      );
    }
    assertEquals(metrics().limitIncreases, max - 1);
    console.log(
      `limit recovered to ${client.http.pool.limit} after ${
        (max - 1) * RECOVERY_SUCCESSES
      } successes; max in flight during recovery ${sim.counters.maxInFlight}`,
    );
  } finally {
    client.close();
    await sim.stop();
  }
});

Deno.test("Retry-After is obeyed: the retry arrives no sooner, and not much later", async () => {
  const sim = await startSimulator({ seed: { incident: 5 }, users: [USER] });
  const client = await TableClient.create(
    testSettings(sim.url, { auth, retry: { initialBackoffMs: 1, maxBackoffMs: 1 } }),
  );
  try {
    sim.faults.add({
      route: "GET /api/now/table/incident",
      fault: { kind: "rate_limit", retryAfterSeconds: 2 },
      times: 1,
    });
    await client.list("incident", { limit: 1 });
    const [throttled, retried] = sim.journal.find({ route: "GET /api/now/table/incident" });
    assertEquals([throttled.status, retried.status], [429, 200]);
    const waited = retried.startedAt - throttled.endedAt!;
    console.log(
      `Retry-After 2 s: retry arrived ${waited} ms after the 429 (${
        ((waited / 2000 - 1) * 100).toFixed(1)
      } % late)`,
    );
    assert(waited >= 2000, `retried too early: ${waited} ms`);
    // 10 % is the requirement; the extra slack absorbs a loaded test machine.
    assert(waited <= 2200 + 300, `retried too late: ${waited} ms`);
  } finally {
    client.close();
    await sim.stop();
  }
});
