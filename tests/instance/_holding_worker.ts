/// <reference lib="deno.worker" />
/** Test worker that takes `hold` permits of a host, queues for one more, and then hangs (until terminated). */
import {
  importPermitPools,
  permitPoolFor,
  type PermitPoolTransfer,
} from "../../src/instance/permit_registry.ts";

self.onmessage = (event: MessageEvent<{ pools: PermitPoolTransfer; host: string; hold: number }>) => {
  const { pools, host, hold } = event.data;
  importPermitPools(pools);
  const pool = permitPoolFor(host, 8);
  for (let i = 0; i < hold; i++) pool.tryAcquire();
  void pool.acquire(Date.now() + 60_000).catch(() => {});
  self.postMessage("holding");
};
