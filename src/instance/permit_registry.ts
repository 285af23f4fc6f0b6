/**
 * The process-wide registry of shared host states, keyed by the lower-cased instance host (`host[:port]`).
 *
 * The main thread creates a host's state (`permitPoolFor`) before starting task threads, hands the buffers to
 * each task thread (`exportPermitPools()` → postMessage → `importPermitPools(transfer)` in the task thread), and every
 * realm then shares one permit pool, one adaptive limit and one set of counters per instance host.
 *
 * Each export also assigns the task thread a realm id under which its permits are tracked: after terminating a
 * task thread (a crashed or stuck task), the main thread calls `reclaimPermits(transfer.realm)` so that permits
 * the task thread held, and its places in the queue, are not lost for the rest of the process.
 */
import { logger } from "../observability/log.ts";
import { lowerMax } from "./adaptive_limit.ts";
import { type InstanceHostMetrics, readHostMetrics } from "./instance_metrics.ts";
import { PermitPool } from "./permit_pool.ts";
import { RatePacer } from "./rate_pacer.ts";
import { CONTROL, createSharedHostState, MAX_REALMS, viewsOf, wakeWaiters } from "./shared_host_state.ts";

const log = logger("instance");
const states = new Map<string, SharedArrayBuffer>();
const pools = new Map<string, PermitPool>();

/** This realm's id: 0 on the main thread; assigned by the main thread to each task thread; -1 untracked. */
let realm = 0;
/** Members of the worker group this process belongs to (1 standalone): each takes its share of a host's budget. */
let groupMembers = 1;
/** Main thread: realm ids handed out and not yet reclaimed. */
const realmsInUse = new Set<number>();

/** What `exportPermitPools` returns: structured-cloneable, and the buffers stay shared when posted. */
export interface PermitPoolTransfer {
  /** The realm id assigned to the task thread receiving this transfer (pass it to `reclaimPermits` later). */
  realm: number;
  /** Shared host state per lower-cased host. */
  pools: Record<string, SharedArrayBuffer>;
}

function keyOf(host: string): string {
  return host.toLowerCase();
}

/**
 * The permit pool of `host` in this process, created with `max` permits on first use. When connectors name
 * different maxima for one host, the smallest wins: the limit protects the instance, so the most cautious
 * setting applies to all.
 */
export function permitPoolFor(host: string, max: number): PermitPool {
  const key = keyOf(host);
  let pool = pools.get(key);
  if (!pool) {
    let buffer = states.get(key);
    if (!buffer) {
      if (realm !== 0) {
        log.warn(
          { host: key },
          "no permit pool for this host from the main thread; this task thread is limited on its own",
        );
      }
      buffer = createSharedHostState(max);
      new RatePacer(viewsOf(buffer)).setMembers(groupMembers);
      states.set(key, buffer);
    }
    pool = new PermitPool(buffer, realm);
    pools.set(key, pool);
  }
  if (max < pool.max) {
    log.warn(
      { host: key, previous: pool.max, max },
      "connectors disagree on svc.http.max.concurrent.requests; using the smaller",
    );
    lowerMax(pool.views, max);
  }
  return pool;
}

/** Every host's shared state, to post to one new task task thread, with a fresh realm id for that task thread. */
export function exportPermitPools(): PermitPoolTransfer {
  let id = -1;
  for (let candidate = 1; candidate < MAX_REALMS; candidate++) {
    if (!realmsInUse.has(candidate)) {
      id = candidate;
      realmsInUse.add(id);
      break;
    }
  }
  if (id === -1) {
    log.warn(
      { maxRealms: MAX_REALMS },
      "too many task threads to track permits per task thread; reclaim is off for this one",
    );
  }
  return { realm: id, pools: Object.fromEntries(states) };
}

/**
 * Gives back the permits and queue places of a terminated task thread, on every host, and frees its realm id.
 * Call it only once the task thread is gone: a live task thread would later release permits a second time.
 * Returns the number of permits reclaimed.
 */
export function reclaimPermits(taskThreadRealm: number): number {
  if (taskThreadRealm <= 0 || taskThreadRealm >= MAX_REALMS) return 0;
  let reclaimed = 0;
  for (const [host, buffer] of states) {
    const { control, realms } = viewsOf(buffer);
    const held = Atomics.exchange(realms, 2 * taskThreadRealm, 0);
    const queued = Atomics.exchange(realms, 2 * taskThreadRealm + 1, 0);
    if (held) Atomics.sub(control, CONTROL.IN_FLIGHT, held);
    if (queued) Atomics.sub(control, CONTROL.WAITING, queued);
    if (held || queued) {
      log.warn({ host, permits: held, queued }, "reclaimed the permits of a terminated task thread");
      wakeWaiters(control);
    }
    reclaimed += held;
  }
  realmsInUse.delete(taskThreadRealm);
  return reclaimed;
}

/**
 * Adopts the shared states posted by the main thread. Call it in a task thread before creating any client; a host
 * this realm already uses keeps its state (it cannot be merged), which is logged.
 */
export function importPermitPools(transfer: PermitPoolTransfer): void {
  realm = transfer.realm;
  for (const [host, buffer] of Object.entries(transfer.pools)) {
    viewsOf(buffer); // validates the shape
    const key = keyOf(host);
    const existing = states.get(key);
    if (existing === buffer) continue;
    if (existing) {
      log.warn({ host: key }, "permit pool already in use in this task thread; imported pool ignored");
      continue;
    }
    states.set(key, buffer);
  }
}

/**
 * The worker group's size changed (an assignment names it): every instance host's request budget is shared by
 * that many daemons, so this one takes `1 / members` of it (rate_pacer.ts). Task task threads share the buffers, so
 * they see it at once.
 */
export function setGroupMembers(members: number): void {
  groupMembers = Math.max(1, Math.floor(members));
  for (const buffer of states.values()) new RatePacer(viewsOf(buffer)).setMembers(groupMembers);
}

/** Metrics of every known instance host, for the metrics endpoint. */
export function instanceMetrics(): InstanceHostMetrics[] {
  return [...states].map(([host, buffer]) => readHostMetrics(host, buffer));
}
