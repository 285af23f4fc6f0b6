/**
 * Fix for kafkajs 2.2.4's idle busy loop (in kafkajs/src/network/requestQueue/index.js).
 *
 * `RequestQueue.scheduleCheckPendingRequests` computes `throttledUntil - Date.now()` with `throttledUntil = -1`,
 * i.e. a huge negative delay, and hands it to `setTimeout` when nothing is pending. The runtime clamps it to 1 ms
 * (Deno also prints `TimeoutNegativeWarning` once) and the callback reschedules itself: a perpetual 1 ms timer per
 * broker connection, several % of a core while idle. When nothing is pending there is nothing to check;
 * `push()` and the response path call the scheduler again as soon as something is queued, so returning early is safe.
 *
 * Importing this module installs the fix once, before any client exists (client.ts imports it first).
 */
import RequestQueueModule from "kafkajs/src/network/requestQueue/index.js";

// deno-lint-ignore no-explicit-any
const RequestQueue = RequestQueueModule as any;
const original = RequestQueue.prototype.scheduleCheckPendingRequests as (this: unknown) => unknown;
const PATCHED = Symbol.for("tablesync.kafkajs.idleFix");

/** Only the idle-CPU benchmark turns this off, to measure the loop the fix removes. */
let enabled = true;

if (!RequestQueue.prototype[PATCHED]) {
  RequestQueue.prototype[PATCHED] = true;
  // deno-lint-ignore no-explicit-any
  RequestQueue.prototype.scheduleCheckPendingRequests = function (this: any) {
    if (enabled && this.pending.length === 0) return;
    return original.call(this);
  };
}

/** Benchmark-only switch (bench/kafka_idle_cpu.ts); the daemon never calls it. */
export function setKafkajsIdleFixEnabled(on: boolean): void {
  enabled = on;
}
