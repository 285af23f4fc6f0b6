/**
 * `GET /sim/stats`: the simulator's counters as JSON, for benchmarks that run `tablesync simulate` in a process of
 * their own (sessions opened per 1,000 requests, 202s, statuses, …). Not an instance API: no auth, not journaled.
 */
import type { SimState } from "../state.ts";

export const SIM_STATS_PATH = "/sim/stats";

export function simStats(state: SimState): Response {
  const c = state.counters;
  const body = {
    requests: c.requests,
    bytesReturned: c.bytesReturned,
    inFlight: c.inFlight,
    maxInFlight: c.maxInFlight,
    statuses: c.statuses(),
    sessionsOpened: c.sessionsOpened,
    sessionsOpenedPer1000Requests: c.requests ? Math.round((c.sessionsOpened / c.requests) * 1000) : 0,
    sessionOverflows: c.sessionOverflows,
    openSessions: state.cluster?.openSessions ?? 0,
    queueFull: c.queueFull,
    quotaCancelled: c.quotaCancelled,
    semaphores: state.cluster?.semaphores() ?? [],
  };
  return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
}
