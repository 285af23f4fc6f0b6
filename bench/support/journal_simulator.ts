/**
 * The simulator in a process of its own for a benchmark that needs its journal: the simulator and the daemon
 * then never share an event loop with the benchmark's own work, and the simulator's CPU is accounted apart.
 *
 *   deno run -A bench/support/journal_simulator.ts '<SimulatorOptions as JSON>'
 *
 * Prints `listening on <api url> control <control url>` once ready. The control server answers
 * `GET /sys-ids?table=T` (the table's sys ids, JSON) and `GET /writes?method=M&after=SEQ` (a summary of the
 * journal entries of that method after sequence number SEQ: see `WriteSummary`), `GET /written?method=M&after=SEQ`
 * (only the count of those answered 200 or 201, cheap enough to poll) and `POST /extra-latency?ms=N`
 * (N ms more on every row update, on top of `latencyMs`; 0 removes it). Runs until killed. With
 * TABLESYNC_CPU_PROFILE_DIR set it writes a CPU profile, like the daemon's threads (docs/performance.md).
 */
import { type JournalEntry, startSimulator } from "../../src/sim/mod.ts";
import { startCpuProfileFromEnv } from "../../src/observability/cpu_profile.ts";

/** What the simulator saw of the writes of one method, for a benchmark's figures. */
export interface WriteSummary {
  /** The journal's last sequence number now (pass it as `after` to look at later writes only). */
  seq: number;
  /** Entries answered 200 (updates) or 201 (creates). */
  ok: number;
  entries: number;
  /** Arrival of the first entry, end of the last one (epoch ms); 0 when none. */
  first: number;
  last: number;
  /** Mean time from arrival to the end of the answer, ms. */
  meanMs: number;
  /** Mean number of these requests in flight between `first` and `last`. */
  meanInFlight: number;
  /** Most of these requests in flight at once. */
  peakInFlight: number;
  /** Share of the time between `first` and `last` with n of these requests in flight, at index n. */
  inFlightShare: number[];
}

export function summarise(entries: readonly JournalEntry[], seq: number): WriteSummary {
  const ok = entries.filter((e) => e.status === 200 || e.status === 201).length;
  if (entries.length === 0) {
    return {
      seq,
      ok,
      entries: 0,
      first: 0,
      last: 0,
      meanMs: 0,
      meanInFlight: 0,
      peakInFlight: 0,
      inFlightShare: [],
    };
  }
  const first = Math.min(...entries.map((e) => e.startedAt));
  const last = Math.max(...entries.map((e) => e.endedAt ?? e.startedAt));
  const busyMs = entries.reduce((sum, e) => sum + ((e.endedAt ?? e.startedAt) - e.startedAt), 0);
  // Sweep over arrivals and ends for the peak and the time spent at each number in flight.
  const events = entries.flatMap((e) => [[e.startedAt, 1], [e.endedAt ?? e.startedAt, -1]])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0, peak = 0, at = first;
  const msAt: number[] = [];
  for (const [time, delta] of events) {
    msAt[now] = (msAt[now] ?? 0) + (time - at);
    at = time;
    peak = Math.max(peak, now += delta);
  }
  return {
    seq,
    ok,
    entries: entries.length,
    first,
    last,
    meanMs: busyMs / entries.length,
    meanInFlight: last > first ? busyMs / (last - first) : 0,
    peakInFlight: peak,
    inFlightShare: Array.from(msAt, (ms) => last > first ? (ms ?? 0) / (last - first) : 0),
  };
}

if (import.meta.main) {
  // With TABLESYNC_CPU_PROFILE_DIR set, the simulator is profiled like the daemon's threads.
  startCpuProfileFromEnv("simulator");
  const sim = await startSimulator({ port: 0, ...JSON.parse(Deno.args[0] ?? "{}") });
  const control = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/sys-ids") {
      return Response.json(sim.table(url.searchParams.get("table") ?? "incident").sysIds());
    }
    if (url.pathname === "/extra-latency" && request.method === "POST") {
      sim.faults.clear();
      const ms = Number(url.searchParams.get("ms") ?? 0);
      if (ms > 0) {
        sim.faults.add({ route: "PATCH /api/now/table/incident/{sys_id}", fault: { kind: "latency", ms } });
      }
      return new Response(null, { status: 204 });
    }
    if (url.pathname === "/written") {
      // The bench polls this while the daemon writes: a plain count from the end of the journal, so polling
      // does not hold the simulator's event loop (a full summary sorts every entry; polled every 100 ms it
      // stalled the answers in flight for several ms each time).
      const method = url.searchParams.get("method") ?? "PATCH";
      const after = Number(url.searchParams.get("after") ?? 0);
      const all = sim.journal.entries();
      let ok = 0;
      for (let i = all.length - 1; i >= 0 && all[i].seq > after; i--) {
        const e = all[i];
        if (e.method === method && (e.status === 200 || e.status === 201)) ok++;
      }
      return Response.json({ ok });
    }
    if (url.pathname === "/writes") {
      const method = url.searchParams.get("method") ?? "PATCH";
      const path = url.searchParams.get("path");
      const after = Number(url.searchParams.get("after") ?? 0);
      const all = sim.journal.entries();
      const seq = all.length > 0 ? all[all.length - 1].seq : 0;
      const entries = all.filter((e) =>
        e.seq > after && e.method === method && (path === null || e.path.includes(path))
      );
      return Response.json(summarise(entries, seq));
    }
    return new Response("not found", { status: 404 });
  });
  console.log(`listening on ${sim.url} control http://127.0.0.1:${control.addr.port}`);
}
