/**
 * The per-instance-host state shared by every realm of the process (main thread and task threads): one
 * SharedArrayBuffer holding the permit counters, the adaptive limit and the metrics counters, so that a
 * task thread's requests, throttling and counts are seen by all others and by the metrics endpoint on the main
 * thread. Posting the buffer to a Worker shares it (structured clone keeps SharedArrayBuffers shared).
 */

/** The BigInt64 slots kept for the rate pacer: one per entry of its `PACING` layout (rate_pacer.ts). */
export const PACING_SLOTS = 17;

/** Int32 slots used with Atomics (waitAsync needs an Int32Array). */
export const CONTROL = {
  /** Permits currently held. */
  IN_FLIGHT: 0,
  /** Current (adaptive) in-flight limit, 1..MAX. */
  LIMIT: 1,
  /** Configured `svc.http.max.concurrent.requests`. */
  MAX: 2,
  /** Successful responses since the limit last changed (recovery counter). */
  SUCCESSES: 3,
  /** Bumped on every release or limit change; waiters sleep on it. */
  GENERATION: 4,
  /** Acquirers currently asleep waiting for a permit. */
  WAITING: 5,
  /** Highest IN_FLIGHT ever reached. */
  PEAK_IN_FLIGHT: 6,
  /** Lowest LIMIT ever reached. */
  LOWEST_LIMIT: 7,
  /** Server-Timing samples in the adaptive limit's current window (adaptive_limit.ts). */
  WINDOW_SAMPLES: 8,
  /** Sum of their `sem_wait`, in milliseconds. */
  WINDOW_SEM_WAIT_MS: 9,
  /** Sum of their round trips (request sent to response headers), in milliseconds. */
  WINDOW_RTT_MS: 10,
  /** Most permits held at once since the window began: the limit grows only when it was reached. */
  WINDOW_PEAK_IN_FLIGHT: 11,
} as const;
const CONTROL_SLOTS = 12;

/** Uint32 counters, after the control slots. Statuses are counted at their own index (100..599). */
export const COUNTER = {
  /** Attempts that ended in an I/O error instead of an HTTP status (index 0 is never a status). */
  IO_ERRORS: 0,
  RETRIES: 1,
  /** Acquisitions that had to sleep before getting a permit. */
  PERMITS_WAITED: 2,
  /** Times the limit shrank (a 429 halved it, or semaphore waits grew). */
  LIMIT_DECREASES: 3,
  /** Times the limit grew (semaphore waits near zero, or 50 successes without Server-Timing). */
  LIMIT_INCREASES: 4,
  /** Responses that set a new instance session in a cookie jar (session_jars.ts): sessions this client opened. */
  SESSIONS_OPENED: 5,
  /** Responses whose Server-Timing `sesh_wait` was above zero: they queued behind their session's previous one. */
  SESSION_WAITS: 6,
  /** Responses HTTP 202 with an empty body: the instance did not do the request (retried). */
  NOT_DONE: 7,
} as const;
export const STATUS_SLOTS = 600;

/**
 * Realms (main thread = 0, each task thread its own id) whose permits and queue places are tracked, so that
 * the main thread can give back what a terminated task thread held (see permit_registry.ts `reclaimPermits`).
 */
export const MAX_REALMS = 256;
/** Per realm: permits held, then places in the queue. */
const REALM_SLOTS = MAX_REALMS * 2;

const INT32_BYTES = (CONTROL_SLOTS + STATUS_SLOTS + REALM_SLOTS) * 4;

const SHARED_HOST_STATE_BYTES = INT32_BYTES + PACING_SLOTS * 8;

export interface SharedHostViews {
  control: Int32Array;
  counters: Uint32Array;
  /** `[2 * realm]` permits held by the realm, `[2 * realm + 1]` its queued acquirers. */
  realms: Int32Array;
  /** The rate-limit pacer's window, budget and schedule (BigInt64 for millisecond timestamps). */
  pacing: BigInt64Array;
}

export function createSharedHostState(max: number): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(SHARED_HOST_STATE_BYTES);
  const { control } = viewsOf(buffer);
  control[CONTROL.LIMIT] = max;
  control[CONTROL.MAX] = max;
  control[CONTROL.LOWEST_LIMIT] = max;
  return buffer;
}

export function viewsOf(buffer: SharedArrayBuffer): SharedHostViews {
  if (buffer.byteLength !== SHARED_HOST_STATE_BYTES) {
    throw new TypeError(`not a shared host state buffer (${buffer.byteLength} bytes)`);
  }
  return {
    control: new Int32Array(buffer, 0, CONTROL_SLOTS),
    counters: new Uint32Array(buffer, CONTROL_SLOTS * 4, STATUS_SLOTS),
    realms: new Int32Array(buffer, (CONTROL_SLOTS + STATUS_SLOTS) * 4, REALM_SLOTS),
    pacing: new BigInt64Array(buffer, INT32_BYTES, PACING_SLOTS),
  };
}

/** Wakes every realm's waiters so that they look at the counters again. */
export function wakeWaiters(control: Int32Array): void {
  Atomics.add(control, CONTROL.GENERATION, 1);
  Atomics.notify(control, CONTROL.GENERATION);
}
