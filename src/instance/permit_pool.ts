/**
 * The request throttler (`svc.http.max.concurrent.requests`, `svc.http.adaptive.throttling`): a counting semaphore
 * of request permits per instance host, whose limit adaptive_limit.ts steers (the instance's semaphore waits, HTTP
 * 429). In detail: a counting semaphore over the shared host state, usable from the main thread and any Web
 * Worker at once:
 * `acquire` takes a permit with a CAS on the in-flight counter when it is below the current (adaptive)
 * limit, and otherwise sleeps with `Atomics.waitAsync` on a generation counter that every release and every
 * limit change bumps. Waking all sleepers on each change is deliberate: the number of waiters is small, and it
 * keeps the protocol correct when a woken waiter gives up (timeout, abort) instead of taking the permit.
 */
import { settlesWithin } from "../common/delay.ts";
import { halveLimit, type LoadSample, recordLoadSample, recordSuccess } from "./adaptive_limit.ts";
import {
  CONTROL,
  COUNTER,
  MAX_REALMS,
  type SharedHostViews,
  viewsOf,
  wakeWaiters,
} from "./shared_host_state.ts";

/** How long a newcomer defers to queued callers before trying anyway (guards against a stale queue count). */
const DEFER_MS = 50;

/** No permit became free before the deadline (the request was never sent). */
export class PermitWaitTimeout extends Error {
  constructor(readonly waitedMs: number, readonly limit: number) {
    super(`no request permit free within ${waitedMs} ms (in-flight limit ${limit})`);
    this.name = "PermitWaitTimeout";
  }
}

/** A held permit; `release` is idempotent. */
export interface Permit {
  release(): void;
}

export class PermitPool {
  readonly views: SharedHostViews;

  /**
   * @param realm this realm's id (0 on the main thread); permits and queue places are tracked under it so
   *   they can be reclaimed if the realm dies. Outside 0..MAX_REALMS-1 nothing is tracked.
   */
  constructor(readonly buffer: SharedArrayBuffer, private readonly realm = 0) {
    this.views = viewsOf(buffer);
  }

  get inFlight(): number {
    return Atomics.load(this.views.control, CONTROL.IN_FLIGHT);
  }
  get limit(): number {
    return Atomics.load(this.views.control, CONTROL.LIMIT);
  }
  get max(): number {
    return Atomics.load(this.views.control, CONTROL.MAX);
  }

  /** Takes a permit if one is free under the current limit. */
  tryAcquire(): Permit | null {
    const { control } = this.views;
    for (;;) {
      const held = Atomics.load(control, CONTROL.IN_FLIGHT);
      if (held >= Atomics.load(control, CONTROL.LIMIT)) return null;
      if (Atomics.compareExchange(control, CONTROL.IN_FLIGHT, held, held + 1) !== held) continue;
      this.track(0, 1);
      raiseWatermark(control, CONTROL.PEAK_IN_FLIGHT, held + 1);
      raiseWatermark(control, CONTROL.WINDOW_PEAK_IN_FLIGHT, held + 1);
      return this.permit();
    }
  }

  /**
   * Waits for a permit until `deadline` (a `Date.now()` instant). Rejects with `PermitWaitTimeout` when it
   * passes, or with the signal's reason when `signal` aborts.
   *
   * A newcomer does not overtake callers already asleep (in any realm): while anyone waits, it queues too,
   * so a caller that releases and immediately re-acquires cannot starve the others.
   */
  async acquire(deadline: number, signal?: AbortSignal): Promise<Permit> {
    const { control, counters } = this.views;
    const started = Date.now();
    let queued = false;
    let deferred = false;
    // An abort wakes every sleeper of every realm; they simply re-check, and this one throws.
    const onAbort = () => wakeWaiters(control);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      for (;;) {
        signal?.throwIfAborted();
        const generation = Atomics.load(control, CONTROL.GENERATION);
        const mayTry = queued || Atomics.load(control, CONTROL.WAITING) === 0;
        const permit = mayTry ? this.tryAcquire() : null;
        if (permit) {
          if (!queued) return permit;
          Atomics.add(counters, COUNTER.PERMITS_WAITED, 1);
          if (Date.now() < deadline) return permit;
          // Woken too late to be useful: the request would have no time left.
          permit.release();
        }
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new PermitWaitTimeout(Date.now() - started, this.limit);
        if (!queued) {
          queued = true;
          deferred = !mayTry;
          Atomics.add(control, CONTROL.WAITING, 1);
          this.track(1, 1);
        }
        await sleepOnGeneration(control, generation, deferred ? Math.min(remaining, DEFER_MS) : remaining);
        deferred = false;
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      if (queued) {
        Atomics.sub(control, CONTROL.WAITING, 1);
        this.track(1, -1);
      }
    }
  }

  /** An HTTP 429 arrived: halve the limit (adaptive throttling). */
  throttled(): number {
    return halveLimit(this.views);
  }

  /**
   * A request succeeded (adaptive throttling): its Server-Timing load sample steers the limit, or without one it
   * counts towards giving a permit back.
   */
  succeeded(sample: LoadSample | null = null): number {
    return sample === null ? recordSuccess(this.views) : recordLoadSample(this.views, sample);
  }

  private permit(): Permit {
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.track(0, -1);
        Atomics.sub(this.views.control, CONTROL.IN_FLIGHT, 1);
        wakeWaiters(this.views.control);
      },
    };
  }

  /** Adds `delta` to this realm's held (`slot` 0) or queued (`slot` 1) count. */
  private track(slot: 0 | 1, delta: number): void {
    if (this.realm >= 0 && this.realm < MAX_REALMS) {
      Atomics.add(this.views.realms, 2 * this.realm + slot, delta);
    }
  }
}

async function sleepOnGeneration(control: Int32Array, generation: number, timeoutMs: number): Promise<void> {
  // A pending Atomics.waitAsync neither keeps Deno's event loop alive nor is its timeout an event-loop timer,
  // so settlesWithin's timer bounds the sleep (the wait's own timeout then expires harmlessly).
  const result = Atomics.waitAsync(control, CONTROL.GENERATION, generation, timeoutMs);
  if (result.async) await settlesWithin(result.value, timeoutMs);
}

function raiseWatermark(control: Int32Array, slot: number, value: number): void {
  for (;;) {
    const peak = Atomics.load(control, slot);
    if (value <= peak || Atomics.compareExchange(control, slot, peak, value) === peak) {
      return;
    }
  }
}
