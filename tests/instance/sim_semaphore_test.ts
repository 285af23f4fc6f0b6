/**
 * The client against the simulator's API_INT semaphore (one node): a full queue's bare 429 (no Retry-After, no
 * body) halves the limit and is retried after a jittered backoff; Server-Timing's growing sem_wait shrinks it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { TableClient } from "../../src/instance/table_client.ts";
import { instanceMetrics } from "../../src/instance/permit_registry.ts";
import { sleepRejectingOnAbort } from "../../src/common/delay.ts";
import { testSettings } from "./_helpers.ts";

const USER = { userName: "integration", password: "sim-Semaphore-41" };
const auth = { type: "basic" as const, username: USER.userName, password: USER.password };

Deno.test("a bare 429 from a full semaphore queue halves the limit and is retried after a jittered backoff", async () => {
  const sim = await startSimulator({
    seed: { incident: 20 },
    users: [USER],
    latencyMs: 20,
    semaphore: { threads: 1, queue: 1 },
  });
  const waits: number[] = [];
  const client = await TableClient.create(
    testSettings(sim.url, {
      auth,
      http: { maxConcurrentRequests: 8 },
      retry: { maxAttempts: 20, initialBackoffMs: 10, maxBackoffMs: 40 },
    }),
    { sleep: (ms, signal) => (waits.push(ms), sleepRejectingOnAbort(ms, signal)), random: () => 0.5 },
  );
  try {
    await Promise.all(Array.from({ length: 8 }, () => client.list("incident", { limit: 1 })));
    const throttled = sim.journal.find({ route: "GET /api/now/table/incident" }).filter((e) =>
      e.status === 429
    );
    assert(throttled.length > 0 && sim.counters.queueFull === throttled.length, "the queue overflowed");
    const metrics = instanceMetrics().find((m) => m.host === client.instance.host)!;
    assertEquals(metrics.requestsByStatus["200"], 8, "every read succeeded in the end");
    assert(metrics.lowestLimit <= 4, `lowest limit ${metrics.lowestLimit}`);
    // No Retry-After: each retry waited a jittered share (here half) of the doubling ceiling, never nothing.
    assertEquals(waits.length, throttled.length);
    for (const wait of waits) assert([5, 10, 20].includes(wait), `wait ${wait} ms`);
  } finally {
    client.close();
    await sim.stop();
  }
});

Deno.test("semaphore waits the simulator reports in Server-Timing shrink the limit", async () => {
  const sim = await startSimulator({
    seed: { incident: 20 },
    users: [USER],
    latencyMs: 5,
    semaphore: { threads: 1, queue: 50 },
  });
  const max = 8;
  const client = await TableClient.create(
    testSettings(sim.url, { auth, http: { maxConcurrentRequests: max } }),
  );
  try {
    let left = 200;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (left-- > 0) await client.list("incident", { limit: 1 });
    }));
    const metrics = instanceMetrics().find((m) => m.host === client.instance.host)!;
    console.log(`1 thread, ${max} permits: limit ${client.http.pool.limit} (lowest ${metrics.lowestLimit})`);
    assertEquals(metrics.requestsByStatus["429"], undefined);
    assert(
      metrics.limitDecreases > 0 && client.http.pool.limit <= max / 2,
      `limit ${client.http.pool.limit}`,
    );
  } finally {
    client.close();
    await sim.stop();
  }
});
