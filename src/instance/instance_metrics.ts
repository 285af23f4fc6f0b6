/**
 * Request counters per instance host, kept in the shared host state so that the metrics endpoint on the main
 * thread sees the requests made by every task thread. Request durations go to a histogram in the thread's own
 * metrics registry (a task thread's reaches the main thread with the task's metrics, labelled by task).
 */
import { DURATION_BUCKETS, type MetricsRegistry } from "../observability/metrics.ts";
import { CONTROL, COUNTER, type SharedHostViews, STATUS_SLOTS, viewsOf } from "./shared_host_state.ts";
import { RatePacer } from "./rate_pacer.ts";

/** What the metrics endpoint shows for one instance host. */
export interface InstanceHostMetrics {
  host: string;
  /** Attempts by final HTTP status, e.g. `{ "200": 1200, "429": 3 }`; only statuses seen. */
  requestsByStatus: Record<string, number>;
  /** Attempts that ended in an I/O error (reset, refused, timeout) rather than a status. */
  ioErrors: number;
  retries: number;
  /** Acquisitions that had to wait for a permit. */
  permitsWaited: number;
  inFlight: number;
  /** Current adaptive in-flight limit. */
  limit: number;
  /** Configured `svc.http.max.concurrent.requests`. */
  maxConcurrent: number;
  /** Highest number of requests in flight seen so far. */
  peakInFlight: number;
  /** Lowest adaptive limit reached so far. */
  lowestLimit: number;
  limitDecreases: number;
  limitIncreases: number;
  waiting: number;
  /** Requests held back by rate-limit pacing (rate_pacer.ts). */
  rateLimitPaced: number;
  /** Instance sessions this process's cookie jars opened (one per concurrent stream, plus any rotation). */
  sessionsOpened: number;
  /** Responses that waited behind their own session's previous request (should stay 0). */
  sessionWaits: number;
  /** Responses HTTP 202 with an empty body (not done; retried). */
  notDone: number;
}

/** Where this thread's request durations go: the task's registry in a task thread, the daemon's in the main thread. */
let durations: MetricsRegistry | null = null;

/** Call once per thread, before requests are made. */
export function recordRequestDurationsIn(registry: MetricsRegistry): void {
  durations = registry;
}

/** Writes to the counters of one host. */
export class HostCounters {
  private readonly views: SharedHostViews;
  constructor(buffer: SharedArrayBuffer, private readonly host = "") {
    this.views = viewsOf(buffer);
  }
  /** Counts a response; with `startedAt` (performance.now() when the request was sent) times it too. */
  status(status: number, startedAt?: number): void {
    if (Number.isInteger(status) && status >= 100 && status < STATUS_SLOTS) {
      Atomics.add(this.views.counters, status, 1);
    }
    if (startedAt !== undefined && durations) {
      const seconds = (performance.now() - startedAt) / 1000;
      durations.observe(
        "tablesync_instance_request_duration_seconds",
        { instance: this.host },
        seconds,
        DURATION_BUCKETS,
      );
    }
  }
  ioError(): void {
    Atomics.add(this.views.counters, COUNTER.IO_ERRORS, 1);
  }
  retry(): void {
    Atomics.add(this.views.counters, COUNTER.RETRIES, 1);
  }
  /** A response gave a jar a new instance session (session_jars.ts). */
  sessionOpened(): void {
    Atomics.add(this.views.counters, COUNTER.SESSIONS_OPENED, 1);
  }
  /** A response queued behind its session's previous request (Server-Timing `sesh_wait` above zero). */
  sessionWait(): void {
    Atomics.add(this.views.counters, COUNTER.SESSION_WAITS, 1);
  }
  /** A 202 with an empty body: not done, retried. */
  notDone(): void {
    Atomics.add(this.views.counters, COUNTER.NOT_DONE, 1);
  }
}

export function readHostMetrics(host: string, buffer: SharedArrayBuffer): InstanceHostMetrics {
  const views = viewsOf(buffer);
  const { control, counters } = views;
  const requestsByStatus: Record<string, number> = {};
  for (let status = 100; status < STATUS_SLOTS; status++) {
    const count = Atomics.load(counters, status);
    if (count > 0) requestsByStatus[String(status)] = count;
  }
  return {
    host,
    requestsByStatus,
    ioErrors: Atomics.load(counters, COUNTER.IO_ERRORS),
    retries: Atomics.load(counters, COUNTER.RETRIES),
    permitsWaited: Atomics.load(counters, COUNTER.PERMITS_WAITED),
    inFlight: Atomics.load(control, CONTROL.IN_FLIGHT),
    limit: Atomics.load(control, CONTROL.LIMIT),
    maxConcurrent: Atomics.load(control, CONTROL.MAX),
    peakInFlight: Atomics.load(control, CONTROL.PEAK_IN_FLIGHT),
    lowestLimit: Atomics.load(control, CONTROL.LOWEST_LIMIT),
    limitDecreases: Atomics.load(counters, COUNTER.LIMIT_DECREASES),
    limitIncreases: Atomics.load(counters, COUNTER.LIMIT_INCREASES),
    waiting: Atomics.load(control, CONTROL.WAITING),
    rateLimitPaced: new RatePacer(views).snapshot().paced,
    sessionsOpened: Atomics.load(counters, COUNTER.SESSIONS_OPENED),
    sessionWaits: Atomics.load(counters, COUNTER.SESSION_WAITS),
    notDone: Atomics.load(counters, COUNTER.NOT_DONE),
  };
}
