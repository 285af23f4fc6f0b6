/// <reference lib="deno.worker" />
/**
 * Test worker: adopts the main thread's permit pools, then runs `loops` concurrent acquire/hold/release loops
 * against one host, tracking how many permits are held at once across all workers in `holders` (a shared
 * Int32Array: [current, max]).
 */
import {
  importPermitPools,
  permitPoolFor,
  type PermitPoolTransfer,
} from "../../src/instance/permit_registry.ts";

interface Job {
  pools: PermitPoolTransfer;
  host: string;
  max: number;
  loops: number;
  rounds: number;
  holders: SharedArrayBuffer;
}

self.onmessage = async (event: MessageEvent<Job>) => {
  const { pools, host, max, loops, rounds } = event.data;
  importPermitPools(pools);
  const pool = permitPoolFor(host, max);
  const holders = new Int32Array(event.data.holders);
  const loop = async () => {
    for (let i = 0; i < rounds; i++) {
      const permit = await pool.acquire(Date.now() + 30_000);
      const now = Atomics.add(holders, 0, 1) + 1;
      for (;;) {
        const seen = Atomics.load(holders, 1);
        if (now <= seen || Atomics.compareExchange(holders, 1, seen, now) === seen) break;
      }
      await new Promise((resolve) => setTimeout(resolve, 1 + (i % 3)));
      Atomics.sub(holders, 0, 1);
      permit.release();
    }
  };
  await Promise.all(Array.from({ length: loops }, loop));
  self.postMessage("done");
};
