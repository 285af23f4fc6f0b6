/**
 * Figures for the instance permit pool (never asserted): uncontended acquire/release cost, and 32 concurrent
 * callers sharing 8 permits in one realm. Run: deno run -A bench/throttler.ts
 */
import { PermitPool } from "../src/instance/permit_pool.ts";
import { createSharedHostState } from "../src/instance/shared_host_state.ts";
import { readHostMetrics } from "../src/instance/instance_metrics.ts";

const uncontended = new PermitPool(createSharedHostState(8));
const n = 200_000;
let started = performance.now();
for (let i = 0; i < n; i++) (await uncontended.acquire(Date.now() + 1000)).release();
const perOp = (performance.now() - started) / n;
console.log(`uncontended acquire+release: ${(perOp * 1000).toFixed(2)} µs/op`);

const buffer = createSharedHostState(8);
const contended = new PermitPool(buffer);
const callers = 32;
const rounds = 64;
let holders = 0;
let peak = 0;
started = performance.now();
await Promise.all(Array.from({ length: callers }, async () => {
  for (let i = 0; i < rounds; i++) {
    const permit = await contended.acquire(Date.now() + 10_000);
    peak = Math.max(peak, ++holders);
    await new Promise((r) => setTimeout(r, 0));
    holders--;
    permit.release();
  }
}));
const metrics = readHostMetrics("bench", buffer);
console.log(
  `${callers} callers, 8 permits, ${callers * rounds} acquisitions: ${
    (performance.now() - started).toFixed(0)
  } ms, ` +
    `peak holders ${peak}, acquisitions that waited ${metrics.permitsWaited}`,
);
