/** Sessions (instance-limits.md §3): cookie-less requests open sessions, cookies reuse one, one at a time, 202. */
import { assert, assertEquals } from "../support/assert.ts";
import { withSim } from "../support/sim.ts";
import { call, cookiesOf, cookieValue, timing, untilInFlight } from "./limits_support.ts";
import { parseSimulateArgs } from "../../src/cli/simulate.ts";

const SESSION_COOKIES = ["JSESSIONID", "glide_user_route", "glide_session_store", "BIGipServerpool_sim"];

Deno.test("sessions: 20 concurrent cookie-less requests open 20 sessions, each with the instance's cookies", async () => {
  await withSim({ seed: { incident: 5 }, sessions: {} }, async (sim) => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(sim)));
    const ids = new Set<string>();
    for (const { res } of answers) {
      assertEquals(res.status, 200);
      assertEquals(res.headers.getSetCookie().map((c) => c.split("=")[0]), SESSION_COOKIES);
      assert(res.headers.getSetCookie().some((c) => /^glide_session_store=\w+; Max-Age=1800;/.test(c)));
      ids.add(cookieValue(res, "JSESSIONID")!);
    }
    assertEquals(ids.size, 20);
    assertEquals(sim.counters.sessionsOpened, 20);
    const stats = await (await fetch(`${sim.url}/sim/stats`)).json();
    assertEquals([stats.sessionsOpened, stats.requests, stats.sessionsOpenedPer1000Requests], [20, 20, 1000]);
  });
});

Deno.test("sessions: requests with a session's cookies reuse it and run one at a time", async () => {
  await withSim({ seed: { incident: 5 }, sessions: {}, latencyMs: 100 }, async (sim) => {
    const cookie = cookiesOf((await call(sim)).res);
    const answers = await Promise.all(Array.from({ length: 4 }, () => call(sim, { cookie })));
    for (const { res } of answers) {
      assertEquals(res.status, 200);
      assertEquals(res.headers.getSetCookie(), []);
    }
    assertEquals(sim.counters.sessionsOpened, 1);
    // One at a time: each ended at least one latency (100 ms) after the one before it.
    const ends = sim.journal.entries().slice(-4).map((e) => e.endedAt!).sort((a, b) => a - b);
    const gaps = ends.slice(1).map((end, i) => end - ends[i]);
    assert(gaps.every((ms) => ms >= 95), `gaps between ends ${gaps}`);
  });
});

Deno.test("sessions: past 10 waiters the answer is 202 with an empty body and the write is not applied", async () => {
  await withSim({ seed: { incident: 20 }, sessions: {} }, async (sim) => {
    const ids = sim.table("incident").sysIds();
    const cookie = cookiesOf((await call(sim)).res);
    // A slow request holds the session; 14 more arrive while it runs: 10 may wait, 4 are turned away.
    sim.faults.add({ fault: { kind: "latency", ms: 1500 }, times: 1 });
    const holder = call(sim, { cookie });
    await untilInFlight(sim, 1);
    const writes = ids.slice(0, 14).map((id, i) =>
      call(sim, {
        cookie,
        method: "PATCH",
        path: `/api/now/table/incident/${id}`,
        body: { short_description: `write ${i}` },
      }).then((answer) => ({ id, i, ...answer }))
    );
    const answers = await Promise.all(writes);
    assertEquals((await holder).res.status, 200);
    const dropped = answers.filter((a) => a.res.status === 202);
    assertEquals(dropped.length, 4);
    assertEquals(answers.filter((a) => a.res.status === 200).length, 10);
    for (const a of dropped) {
      assertEquals(a.text, "");
      assert(
        sim.table("incident").get(a.id)!.short_description !== `write ${a.i}`,
        "a 202 write was applied",
      );
    }
    for (const a of answers.filter((a) => a.res.status === 200)) {
      assertEquals(sim.table("incident").get(a.id)!.short_description, `write ${a.i}`);
      // They waited for the session: Server-Timing says so.
      assert(timing(a.res).sesh_wait > 0, a.res.headers.get("server-timing")!);
    }
    assertEquals(sim.counters.sessionOverflows, 4);
    assertEquals(sim.counters.statuses()[202], 4);
  });
});

Deno.test("sessions: reads past the waiters are 202 too, and nothing is read", async () => {
  await withSim({ seed: { incident: 5 }, sessions: { maxWaiters: 1 } }, async (sim) => {
    const cookie = cookiesOf((await call(sim)).res);
    sim.faults.add({ fault: { kind: "latency", ms: 800 }, times: 1 });
    const holder = call(sim, { cookie });
    await untilInFlight(sim, 1);
    const [a, b, c] = await Promise.all([
      call(sim, { cookie }),
      call(sim, { cookie }),
      call(sim, { cookie }),
    ]);
    await holder;
    assertEquals([a, b, c].map((x) => x.res.status).sort(), [200, 202, 202]);
    assertEquals([a, b, c].filter((x) => x.res.status === 202).map((x) => x.text), ["", ""]);
    assertEquals(sim.counters.rowsReturned, 3);
  });
});

Deno.test("nodes: the balancer spreads cookie-less requests and pins a client by its cookie; sessions are per node", async () => {
  await withSim({ seed: { incident: 5 }, sessions: {}, nodes: 2, instanceName: "dev1" }, async (sim) => {
    const a = (await call(sim)).res;
    const b = (await call(sim)).res;
    const routeA = cookieValue(a, "glide_user_route");
    assert(routeA && routeA !== cookieValue(b, "glide_user_route"), "both landed on one node");
    // Only the balancer's cookie: pinned to A's node, where a new session opens.
    const pinned =
      (await call(sim, { cookie: `BIGipServerpool_dev1=${cookieValue(a, "BIGipServerpool_dev1")}` }))
        .res;
    assertEquals(cookieValue(pinned, "glide_user_route"), routeA);
    // A's session id sent to B's node is unknown there: a new session.
    const moved = (await call(sim, {
      cookie: `JSESSIONID=${cookieValue(a, "JSESSIONID")}; glide_user_route=${
        cookieValue(b, "glide_user_route")
      }`,
    })).res;
    assert(cookieValue(moved, "JSESSIONID"), "no new session on the other node");
    assertEquals((await call(sim, { cookie: cookiesOf(a) })).res.headers.getSetCookie(), []);
    assertEquals(sim.counters.sessionsOpened, 4);
  });
});

Deno.test("sessions are off by default: no cookies, nothing waits", async () => {
  await withSim({ seed: { incident: 5 } }, async (sim) => {
    const { res } = await call(sim);
    assertEquals(res.headers.getSetCookie(), []);
    assertEquals(res.headers.get("server-timing"), null);
    assertEquals(sim.counters.sessionsOpened, 0);
  });
});

Deno.test("simulate --sessions, --session-max-waiters, --nodes", async () => {
  assertEquals(await parseSimulateArgs(["--sessions", "--nodes", "3"]), {
    port: 8089,
    sessions: {},
    nodes: 3,
  });
  assertEquals(await parseSimulateArgs(["--session-max-waiters=4"]), {
    port: 8089,
    sessions: { maxWaiters: 4 },
  });
});
