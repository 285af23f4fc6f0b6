/** svc.source.poll.batch: when a task coalesces idle reads, which sweeps count as idle, and the idle polls' ticks. */
import { assert, assertEquals } from "../support/assert.ts";
import { alignIdlePoll, idleAfter, pollBatchingFor } from "../../src/source/poll_batching.ts";
import { sourceSettingsFromProps } from "../../src/source/settings.ts";
import { TableClient } from "../../src/instance/table_client.ts";
import { propsOf, sourceConfig, TestContext } from "./support.ts";
import type { Simulator } from "../../src/sim/mod.ts";
import { testSettings } from "../instance/_helpers.ts";

const fakeSim = { url: "https://batching.example.test" } as Simulator;

Deno.test("poll.batch: auto batches from two pollers on (a table with deletes counts twice), true always, false never", async () => {
  const client = await TableClient.create(testSettings(fakeSim.url));
  const logger = new TestContext().logger;
  const batching = (tables: Record<string, string>, extra: Record<string, string> = {}) =>
    pollBatchingFor(sourceSettingsFromProps(propsOf(sourceConfig(fakeSim, tables, extra))), client, logger);
  try {
    assertEquals(batching({ a: "incident" }), undefined);
    // auto aligns idle polls to the shared tick (the host has no request budget here).
    assertEquals(batching({ a: "incident", b: "problem" })?.(10_400, 1000), 10_000);
    assertEquals(
      batching({ a: "incident" }, { "svc.table.a.capture.deletes": "true" })?.(10_400, 1000),
      10_000,
    );
    assertEquals(batching({ a: "incident" }, { "svc.source.poll.batch": "true" }), alignIdlePoll);
    assertEquals(batching({ a: "incident", b: "problem" }, { "svc.source.poll.batch": "false" }), undefined);
  } finally {
    client.close();
  }
});

Deno.test("poll.batch auto under a request budget: idle polls go singly, each when it is due, not bunched on a tick", async () => {
  // A host of its own: the budget configured here is the host's, shared by every client of it.
  const url = "https://batching-budget.example.test";
  const client = await TableClient.create(testSettings(url, { http: { requestsPerHour: 3600 } }));
  const settings = (extra: Record<string, string>) =>
    sourceSettingsFromProps(
      propsOf(sourceConfig({ url } as Simulator, { a: "incident", b: "problem" }, extra)),
    );
  try {
    const auto = pollBatchingFor(settings({}), client, new TestContext().logger)!;
    const always = pollBatchingFor(
      settings({ "svc.source.poll.batch": "true" }),
      client,
      new TestContext().logger,
    )!;
    client.http.budget!.pollRate(Date.now()); // the configured budget opens its window
    assert((client.http.budget!.snapshot().limit) > 0, "the host has a request budget");
    assertEquals(auto(10_400, 1000), 10_400);
    assertEquals(auto(9_700, 1000), 9_700);
    // Batches under `true` still need their tables due together.
    assertEquals(always(10_400, 1000), 10_000);
  } finally {
    client.close();
  }
});

Deno.test("idle polls go at the tick of their interval nearest to when they are due", () => {
  for (const interval of [20, 1000, 5000]) {
    for (let i = 0; i < 200; i++) {
      const due = 1_700_000_000_000 + ((i * 7919) % (10 * interval));
      const at = alignIdlePoll(due, interval);
      assertEquals(at % interval, 0, `${at} is not a tick of ${interval}`);
      assert(Math.abs(at - due) <= interval / 2, `${at} is more than half an interval from ${due}`);
    }
  }
  // Two tables due a little apart poll at the same tick.
  assertEquals(alignIdlePoll(10_400, 1000), alignIdlePoll(9_700, 1000));
});

Deno.test("only a sweep of one small page makes the next window query idle-shaped", () => {
  assert(idleAfter(1, 2_000));
  assert(!idleAfter(2, 2_000), "a sweep of two pages: the table was catching up");
  assert(!idleAfter(1, 5 * 1024 * 1024), "a large single page: the next may be large too");
});
