/** The instance clock (Date header, modes) and the background writer. */
import { assert, assertEquals } from "../support/assert.ts";
import { get } from "./helpers.ts";
import { withSim } from "../support/sim.ts";
import { InstanceClock } from "../../src/sim/clock.ts";

Deno.test("every response carries the instance clock in its Date header", async () => {
  await withSim({}, async (sim) => {
    assertEquals(
      (await get(sim, "/api/now/table/incident")).headers.get("date"),
      "Fri, 01 Mar 2024 12:00:00 GMT",
    );
    sim.clock.advance(90_000);
    assertEquals(
      (await get(sim, "/api/now/table/nope")).headers.get("date"),
      "Fri, 01 Mar 2024 12:01:30 GMT",
    );
    assertEquals(
      (await get(sim, "/api/now/table/incident", {}, {} as never)).headers.get("date"),
      "Fri, 01 Mar 2024 12:01:30 GMT",
    );
  });
});

Deno.test("clock modes: real, offset, frozen; set keeps the mode", () => {
  const clock = new InstanceClock({ mode: "offset", offsetMs: 3_600_000 });
  const skew = clock.nowMs() - Date.now();
  assert(skew > 3_590_000 && skew < 3_610_000, String(skew));
  clock.freeze("2024-01-01 00:00:00");
  assertEquals(clock.now().toISOString(), "2024-01-01T00:00:00.000Z");
  clock.advance(1500);
  assertEquals(clock.nowSeconds(), Date.parse("2024-01-01T00:00:01Z") / 1000);
  clock.set(new Date("2030-05-05T05:05:05Z"));
  assertEquals([clock.mode, clock.now().toISOString()], ["frozen", "2030-05-05T05:05:05.000Z"]);
  clock.useRealTime();
  assert(Math.abs(clock.nowMs() - Date.now()) < 1000, "real");
  clock.set("2030-01-01 00:00:00");
  assertEquals(clock.mode, "offset");
  assert(Math.abs(clock.nowMs() - Date.parse("2030-01-01T00:00:00Z")) < 1000, "running from the set time");
});

Deno.test("writer.step inserts and updates rows with correct system fields, many in one second", async () => {
  await withSim({ seed: { incident: 100 } }, (sim) => {
    const table = sim.table("incident");
    const before = new Map(table.sysIds().map((id) => [id, table.get(id)!]));
    const written = sim.writer.step(50);
    assertEquals(written.length, 50);
    let inserts = 0, updates = 0;
    const times = new Map<string, number>();
    for (const id of written) times.set(id, (times.get(id) ?? 0) + 1);
    for (const [id, n] of times) {
      const row = table.get(id)!;
      assertEquals([row.sys_updated_on, row.sys_updated_by], ["2024-03-01 12:00:00", "writer"]);
      const old = before.get(id);
      if (!old) {
        inserts++;
        // inserted (mod count 0), then possibly picked for an update later in the same step
        assertEquals(row.sys_mod_count, String(n - 1));
      } else {
        updates++;
        assert(Number(row.sys_mod_count) > Number(old.sys_mod_count), "bumped");
        assert(Number(row.sys_mod_count) <= Number(old.sys_mod_count) + n, "bumped once per write");
      }
    }
    assert(inserts > 0 && updates > 0, `${inserts} inserts, ${updates} updates`);
    const bucket = table.sameSecondBuckets(2).find((b) => b.timestamp === "2024-03-01 12:00:00")!;
    assert(bucket.count >= 40, "the writes share one second");
  });
});

Deno.test("the timed writer writes while running and stops", async () => {
  await withSim({ seed: { incident: 10 }, clock: { mode: "real" } }, async (sim) => {
    const start = sim.table("incident").count;
    sim.writer.start({ rowsPerSecond: 200, insertRatio: 1 });
    await new Promise((r) => setTimeout(r, 350));
    sim.writer.stop();
    const after = sim.table("incident").count;
    assert(after > start, "rows were written");
    await new Promise((r) => setTimeout(r, 150));
    assertEquals(sim.table("incident").count, after);
    assertEquals(sim.writer.running, false);
  });
});
