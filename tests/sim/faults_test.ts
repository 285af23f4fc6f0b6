/** Each fault kind, its route matching and determinism, the journal and the in-flight counters. */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { AUTH, get } from "./helpers.ts";
import { withSim } from "../support/sim.ts";

const LIST = "GET /api/now/table/incident";

Deno.test("rate_limit: 429 with Retry-After and X-RateLimit-*; busy: 429 without them", async () => {
  await withSim({}, async (sim) => {
    sim.faults.add({ route: LIST, fault: { kind: "rate_limit", retryAfterSeconds: 7 }, times: 1 });
    const limited = await get(sim, "/api/now/table/incident");
    assertEquals([
      limited.status,
      limited.headers.get("retry-after"),
      limited.headers.get("x-ratelimit-limit"),
    ], [429, "7", "100"]);
    assertEquals(limited.headers.get("x-ratelimit-reset"), String(Date.parse("2024-03-01T12:00:07Z") / 1000));
    assertEquals(limited.body.error.message, "Rate limit exceeded");
    assertEquals((await get(sim, "/api/now/table/incident")).status, 200);
    sim.faults.add({ route: LIST, fault: { kind: "busy" }, times: 1 });
    const busy = await get(sim, "/api/now/table/incident");
    assertEquals([busy.status, busy.headers.get("retry-after"), busy.headers.get("x-ratelimit-limit")], [
      429,
      null,
      null,
    ]);
  });
});

Deno.test("status faults, skip and times; other routes are untouched", async () => {
  await withSim({}, async (sim) => {
    sim.faults.add({ route: LIST, fault: { kind: "status", status: 503 }, skip: 1, times: 2 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(sim, "/api/now/table/incident")).status);
    assertEquals(statuses, [200, 503, 503, 200]);
    sim.faults.add({ table: "incident", fault: { kind: "status", status: 500 } });
    assertEquals((await get(sim, "/api/now/table/problem")).status, 200);
    assertEquals((await get(sim, "/api/now/table/incident")).body.error.message, "Internal Server Error");
  });
});

Deno.test("probabilistic faults are deterministic under the random seed", async () => {
  const pattern = async () => {
    let out = "";
    await withSim({ randomSeed: 42 }, async (sim) => {
      sim.faults.add({ route: LIST, fault: { kind: "busy" }, probability: 0.5 });
      for (let i = 0; i < 16; i++) {
        out += (await get(sim, "/api/now/table/incident")).status === 429 ? "x" : ".";
      }
    });
    return out;
  };
  const a = await pattern();
  assertEquals(await pattern(), a);
  assert(a.includes("x") && a.includes("."), a);
});

Deno.test("connection reset mid-body: the client fails while reading a 200", async () => {
  await withSim({ seed: { incident: 300 } }, async (sim) => {
    sim.faults.add({ route: LIST, fault: { kind: "reset", afterBytes: 5000 }, times: 1 });
    const res = await fetch(`${sim.url}/api/now/table/incident`, { headers: AUTH });
    assertEquals(res.status, 200);
    await assertRejects(() => res.text());
  });
});

Deno.test("transaction-quota cancel: 200 whose JSON is cut off and followed by the error object", async () => {
  await withSim({ seed: { incident: 50 } }, async (sim) => {
    sim.faults.add({ route: LIST, fault: { kind: "quota_cancel", afterRows: 10 }, times: 1 });
    const res = await fetch(`${sim.url}/api/now/table/incident?sysparm_fields=sys_id`, { headers: AUTH });
    assertEquals(res.status, 200);
    const text = await res.text();
    assert(
      text.endsWith(
        '{"error":{"message":"Transaction cancelled: maximum execution time exceeded","detail":"Transaction cancelled: maximum execution time exceeded Check logs for error trace or enable glide.rest.debug property to verify REST request processing"},"status":"failure"}',
      ),
      text.slice(-200),
    );
    assertEquals(text.match(/"sys_id"/g)!.length, 10);
    let parsed = true;
    try {
      JSON.parse(text);
    } catch {
      parsed = false;
    }
    assertEquals(parsed, false);
  });
});

Deno.test("gzip and oversized bodies", async () => {
  await withSim({ seed: { problem: 5 } }, async (sim) => {
    sim.faults.add({ route: "GET /api/now/table/problem", fault: { kind: "gzip" }, times: 1 });
    const raw = await fetch(`${sim.url}/api/now/table/problem`, {
      headers: { ...AUTH, "accept-encoding": "gzip" },
    });
    assertEquals(raw.headers.get("content-encoding"), "gzip");
    assertEquals((await raw.json()).result.length, 5);
    sim.faults.add({
      route: "GET /api/now/table/problem",
      fault: { kind: "oversized", bytes: 3_000_000 },
      times: 1,
    });
    const big = await fetch(`${sim.url}/api/now/table/problem`, { headers: AUTH });
    const text = await big.text();
    assert(text.length >= 3_000_000, String(text.length));
    assertEquals(JSON.parse(text).result.length, 5);
  });
});

Deno.test("acl_hide: hidden rows count in X-Total-Count and are removed after the limit", async () => {
  await withSim({ seed: { problem: 40 } }, async (sim) => {
    const ids = sim.table("problem").sysIds();
    sim.faults.add({ table: "problem", fault: { kind: "acl_hide", sysIds: ids.slice(0, 10) } });
    const first = await get(sim, "/api/now/table/problem", {
      sysparm_query: "ORDERBYsys_updated_on^ORDERBYsys_id",
      sysparm_limit: "10",
    });
    assertEquals([first.body.result.length, first.headers.get("x-total-count")], [0, "40"]);
    assert(first.headers.get("link")!.includes('rel="next"'), "more rows follow an empty page");
    const second = await get(sim, "/api/now/table/problem", {
      sysparm_query: "ORDERBYsys_updated_on^ORDERBYsys_id",
      sysparm_limit: "10",
      sysparm_offset: "10",
    });
    assertEquals(second.body.result.length, 10);
    assertEquals((await get(sim, `/api/now/table/problem/${ids[0]}`)).status, 404);
  });
});

Deno.test("latency and per-row latency hold requests in flight; maxima are tracked per route", async () => {
  await withSim({ seed: { problem: 20 } }, async (sim) => {
    sim.faults.add({ route: "GET /api/now/table/problem", fault: { kind: "latency", ms: 60 } });
    await Promise.all([1, 2, 3].map(() => get(sim, "/api/now/table/problem")));
    await get(sim, "/api/now/table/incident");
    assertEquals(sim.counters.maxInFlightByRoute()["GET /api/now/table/problem"], 3);
    assertEquals(sim.counters.maxInFlightByRoute()[LIST], 1);
    assertEquals(sim.counters.maxInFlight, 3);
    assertEquals(sim.counters.inFlight, 0);
    const entry = sim.journal.find({ route: "GET /api/now/table/problem" })[0];
    assert(entry.endedAt! - entry.startedAt >= 50, "latency applied");
    assertEquals(entry.faults, ["latency"]);
  });
});

Deno.test("the configured latency counts from a request's arrival: no answer comes before it", async () => {
  // Journal times are whole milliseconds, hence one for rounding.
  await withSim({ seed: { problem: 5 }, latencyMs: 25 }, async (sim) => {
    for (let i = 0; i < 5; i++) await get(sim, "/api/now/table/problem");
    const spans = sim.journal.entries().map((e) => e.endedAt! - e.startedAt);
    assertEquals(spans.length, 5);
    for (const span of spans) assert(span >= 25 - 1, `answered after ${span} ms with a latency of 25 ms`);
  });
});

Deno.test("the journal records method, path, raw query string, params, status and principal", async () => {
  await withSim({}, async (sim) => {
    await fetch(
      `${sim.url}/api/now/v2/table/incident?sysparm_query=active%3Dtrue%5EORDERBYsys_id&sysparm_limit=5`,
      { headers: AUTH },
    ).then((r) => r.text());
    await fetch(`${sim.url}/api/now/table/incident`).then((r) => r.text());
    const [ok, unauth] = sim.journal.entries();
    assertEquals([ok.method, ok.path, ok.route, ok.table, ok.status, ok.principal, ok.authKind], [
      "GET",
      "/api/now/v2/table/incident",
      LIST,
      "incident",
      200,
      "admin",
      "basic",
    ]);
    assertEquals(ok.queryString, "sysparm_query=active%3Dtrue%5EORDERBYsys_id&sysparm_limit=5");
    assertEquals(ok.params, { sysparm_query: "active=true^ORDERBYsys_id", sysparm_limit: "5" });
    assertEquals([unauth.status, unauth.principal], [401, undefined]);
    assert(ok.endedAt! >= ok.startedAt, "timed");
  });
});
