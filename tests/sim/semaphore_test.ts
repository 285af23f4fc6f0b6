/** The API_INT semaphore (instance-limits.md §2): threads and a queue per node, a bare 429, Server-Timing. */
import { assert, assertEquals } from "../support/assert.ts";
import { withSim } from "../support/sim.ts";
import { call, timing, untilInFlight } from "./limits_support.ts";
import type { Simulator } from "../../src/sim/mod.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { parseSimulateArgs } from "../../src/cli/simulate.ts";

async function stats(sim: Simulator) {
  return await (await fetch(`${sim.url}/sim/stats`)).json();
}

async function untilQueued(sim: Simulator, n: number): Promise<void> {
  while ((await stats(sim)).semaphores[0].queued < n) await new Promise((r) => setTimeout(r, 5));
}

Deno.test("semaphore: a full queue answers a bare 429; queued requests run once threads free up", async () => {
  await withSim(
    { seed: { incident: 5 }, semaphore: { threads: 1, queue: 2, otherClientThreads: 1 } },
    async (sim) => {
      // Another client holds the only thread: two requests queue, the third finds the queue full.
      const queued = [call(sim), call(sim)];
      await untilQueued(sim, 2);
      const { res, text } = await call(sim);
      assertEquals(res.status, 429);
      assertEquals(text, "");
      for (const name of ["retry-after", "content-type", "x-ratelimit-limit", "server-timing"]) {
        assertEquals(res.headers.get(name), null, name);
      }
      assertEquals(sim.counters.queueFull, 1);
      sim.otherClientThreads = 0;
      for (const { res } of await Promise.all(queued)) {
        assertEquals(res.status, 200);
        assert(timing(res).sem_wait > 0, res.headers.get("server-timing")!);
        assert(/^[0-9a-f]{12}$/.test(res.headers.get("x-transaction-id")!));
      }
      assertEquals((await stats(sim)).queueFull, 1);
    },
  );
});

Deno.test("semaphore: Server-Timing sem_wait grows under contention", async () => {
  await withSim({ seed: { incident: 5 }, semaphore: { threads: 2 }, latencyMs: 40 }, async (sim) => {
    const alone = (await call(sim)).res;
    assertEquals(timing(alone), { sem_wait: 0, sesh_wait: 0 });
    // Another client holds both threads while eight requests queue; then it lets go and they run two by two.
    sim.otherClientThreads = 2;
    const crowd = Array.from({ length: 8 }, () => call(sim));
    await untilQueued(sim, 8);
    await new Promise((r) => setTimeout(r, 20));
    sim.otherClientThreads = 0;
    const waits = (await Promise.all(crowd)).map(({ res }) => timing(res).sem_wait).sort((a, b) => a - b);
    // Each waited the 20 ms at least; the last two also waited for three rounds of two (40 ms each).
    assert(waits[0] >= 20, `sem_wait ${waits}`);
    assert(waits[7] >= 20 + 3 * 40, `sem_wait ${waits}`);
  });
});

Deno.test("semaphore: each node has its own threads; the balancer spreads cookie-less requests", async () => {
  await withSim({ seed: { incident: 5 }, nodes: 2, semaphore: { threads: 1, queue: 0 } }, async (sim) => {
    sim.faults.add({ fault: { kind: "latency", ms: 600 }, times: 2 });
    const busy = [call(sim), call(sim)];
    await untilInFlight(sim, 2);
    assertEquals((await call(sim)).res.status, 429);
    assertEquals((await Promise.all(busy)).map(({ res }) => res.status), [200, 200]);
  });
});

Deno.test("semaphore: stopping the simulator sends queued requests away with 503", async () => {
  const sim = await startSimulator({
    users: ["admin:secret"],
    semaphore: { threads: 1, otherClientThreads: 1 },
  });
  const waiting = call(sim);
  await untilQueued(sim, 1);
  await sim.stop();
  assertEquals((await waiting).res.status, 503);
});

Deno.test("simulate --threads, --queue, --other-client-threads", async () => {
  assertEquals(await parseSimulateArgs(["--threads", "4", "--queue=50", "--other-client-threads", "2"]), {
    port: 8089,
    semaphore: { threads: 4, queue: 50, otherClientThreads: 2 },
  });
});
