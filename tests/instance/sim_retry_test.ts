/** Retries, their limits, and the ambiguous-create rule, against the simulator through real sockets. */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import type { Simulator } from "../../src/sim/mod.ts";
import { withSim } from "../support/sim.ts";
import { TableClient } from "../../src/instance/table_client.ts";
import { AmbiguousRequestError, InstanceRetriableError } from "../../src/instance/errors.ts";
import { testSettings } from "./_helpers.ts";

const USER = { userName: "integration", password: "sim-Password-78" };
const auth = { type: "basic" as const, username: USER.userName, password: USER.password };
const LIST = "GET /api/now/table/incident";
const CREATE = "POST /api/now/table/incident";

/** A simulator (real clock) and a client of it with `overrides`, for one body. */
function withSimClient(
  overrides: Parameters<typeof testSettings>[1],
  fn: (sim: Simulator, client: TableClient) => Promise<void>,
): Promise<void> {
  return withSim({ seed: { incident: 10 }, users: [USER], clock: { mode: "real" } }, async (sim) => {
    const client = await TableClient.create(testSettings(sim.url, { auth, ...overrides }));
    try {
      await fn(sim, client);
    } finally {
      client.close();
    }
  });
}

Deno.test("sim: 5xx answers are retried until the request succeeds", async () => {
  await withSimClient({}, async (sim, client) => {
    sim.faults.add({ route: LIST, fault: { kind: "status", status: 503 }, times: 2 });
    const page = await client.list("incident", { limit: 3 });
    assertEquals(page.rows.length, 3);
    assertEquals(sim.journal.find({ route: LIST }).map((e) => e.status), [503, 503, 200]);
  });
});

Deno.test("sim: max attempts bounds the attempts; the error names method, path, status and attempts", async () => {
  await withSimClient({ retry: { maxAttempts: 3 } }, async (sim, client) => {
    sim.faults.add({ route: LIST, fault: { kind: "status", status: 500 } });
    const error = await assertRejects(() => client.list("incident", { limit: 1 }), InstanceRetriableError);
    assertEquals(sim.journal.find({ route: LIST }).length, 3);
    assert(
      error.message.startsWith("GET /api/now/table/incident failed after 3 attempts (last status 500)"),
      error.message,
    );
    assert(!error.message.includes(USER.password));
  });
});

Deno.test("sim: no retry whose wait would pass max elapsed", async () => {
  await withSimClient({ retry: { maxElapsedMs: 1000 } }, async (sim, client) => {
    sim.faults.add({ route: LIST, fault: { kind: "rate_limit", retryAfterSeconds: 5 } });
    await assertRejects(
      () => client.list("incident", { limit: 1 }),
      InstanceRetriableError,
      "the next wait (5000 ms, from Retry-After) would pass svc.retry.max.elapsed.ms (1000)",
    );
    assertEquals(sim.journal.find({ route: LIST }).length, 1);
  });
});

Deno.test("sim: backoff waits stay under the capped ceiling", async () => {
  await withSimClient(
    { retry: { maxAttempts: 6, initialBackoffMs: 40, maxBackoffMs: 80 } },
    async (sim, client) => {
      sim.faults.add({ route: LIST, fault: { kind: "status", status: 502 }, times: 5 });
      await client.list("incident", { limit: 1 });
      const entries = sim.journal.find({ route: LIST });
      assertEquals(entries.length, 6);
      const gaps = entries.slice(1).map((e, i) => e.startedAt - entries[i].endedAt!);
      console.log(`backoff gaps (ceilings 40, 80, 80, 80, 80 ms): ${gaps.join(", ")} ms`);
      // Full jitter stays below the 80 ms cap; the slack absorbs a loaded machine.
      for (const gap of gaps) assert(gap < 80 + 150, `gap ${gap} ms`);
    },
  );
});

Deno.test("sim: a POST that timed out after being sent is ambiguous and not retried", async () => {
  await withSimClient({ http: { requestTimeoutMs: 300 } }, async (sim, client) => {
    sim.faults.add({ route: CREATE, fault: { kind: "latency", ms: 1000 }, times: 1 });
    const error = await assertRejects(
      () => client.create("incident", { short_description: "slow" }),
      AmbiguousRequestError,
      "no response headers within svc.http.request.timeout.ms (300 ms)",
    );
    assertEquals((error as AmbiguousRequestError).attempts, 1);
    assertEquals(sim.journal.find({ route: CREATE }).length, 1, "not retried");
  });
});

Deno.test("sim: a POST whose connection is reset after sending is ambiguous, and the row may well exist", async () => {
  await withSimClient({}, async (sim, client) => {
    sim.faults.add({ route: CREATE, fault: { kind: "reset", afterBytes: 10 }, times: 1 });
    const before = sim.table("incident").count;
    await assertRejects(
      () => client.create("incident", { short_description: "reset" }),
      AmbiguousRequestError,
    );
    assertEquals(sim.journal.find({ route: CREATE }).length, 1, "not retried");
    assertEquals(
      sim.table("incident").count,
      before + 1,
      "the instance did create it: a blind retry would duplicate",
    );
  });
});

Deno.test("sim: a GET reset mid-body is retried (safe to repeat)", async () => {
  await withSimClient({}, async (sim, client) => {
    sim.faults.add({ route: LIST, fault: { kind: "reset", afterBytes: 20 }, times: 1 });
    const page = await client.list("incident", { limit: 5 });
    assertEquals(page.rows.length, 5);
    assertEquals(sim.journal.find({ route: LIST }).length, 2);
  });
});

Deno.test("sim: connection refused is retried, even for POST: nothing was sent", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const client = await TableClient.create(
    testSettings(`http://127.0.0.1:${port}`, { auth, retry: { maxAttempts: 3 } }),
  );
  try {
    const error = await assertRejects(
      () => client.create("incident", {}),
      InstanceRetriableError,
    ) as InstanceRetriableError;
    assertEquals([error.attempts, error.status], [3, null]);
    assert(/refused/i.test(error.message), error.message);
  } finally {
    client.close();
  }
});
