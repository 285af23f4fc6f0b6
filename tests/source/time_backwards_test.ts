/**
 * Telling a rollback from ordinary changes (time_backwards.ts) against the simulator: the cursor's row back at an
 * older version is a rollback (the policy acts); the row gone with the table's newest row far older is only a
 * warning (a deletion looks the same); a row that changed out of the table's query, or a clock a few seconds
 * behind, is nothing; each cursor position is asked about once.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { instanceSettingsFromProps, TableClient } from "../../src/instance/mod.ts";
import { sourceSettingsFromProps } from "../../src/source/settings.ts";
import { TimeBackwards } from "../../src/source/time_backwards.ts";
import { parseGlideDateTime } from "../../src/source/glide_timestamp.ts";
import {
  pollUntil,
  pollUntilQuiet,
  propsOf,
  sourceConfig,
  startSim,
  startTask,
  stopTask,
  TestContext,
} from "./support.ts";

const cursorOf = (timestamp: string, sysId: string) => ({
  timestamp,
  sysId,
  epochMs: parseGlideDateTime(timestamp),
});

Deno.test("time going backwards: a reverted cursor row acts, a deleted one only warns, a row out of the query and a small clock step are nothing", async () => {
  const sim = await startSim({
    seed: { incident: 20 },
    clock: { mode: "frozen", at: "2024-06-01 12:00:00" },
  });
  const props = propsOf(sourceConfig(sim, { inc: "incident" }, { "svc.table.inc.query": "active=true" }));
  const client = await TableClient.create(instanceSettingsFromProps(props));
  try {
    const source = sourceSettingsFromProps(props);
    const context = new TestContext();
    const warnings: string[] = [];
    const watch = new TimeBackwards({
      table: source.tables[0],
      source,
      client,
      context,
      signal: new AbortController().signal,
      warned: (m) => warnings.push(m),
    });
    const table = sim.table("incident");
    const present = parseGlideDateTime("2024-06-01 14:00:00");
    const requests = () => sim.journal.entries().length;

    // A row changed an hour ago, then out of the query: it moved forward, nothing went back.
    sim.clock.set("2024-06-01 13:00:00");
    const moved = table.update(table.sysIds()[0], { active: "false" })!;
    assertEquals(
      await watch.emptySweep(cursorOf(moved.sys_updated_on, moved.sys_id), present),
      { kind: "none" },
    );

    // The row at the cursor is back at its version of 12:00 (a clone): the default policy reads the table again.
    const reverted = table.get(table.sysIds()[3])!;
    const action = await watch.emptySweep(cursorOf("2024-06-01 13:30:00", reverted.sys_id), present);
    assertEquals(action, { kind: "reconcile" });
    assert(
      /is back at .* the instance went back in time, most likely a clone/.test(warnings.at(-1)!),
      warnings.at(-1),
    );
    const before = requests();
    assertEquals(await watch.emptySweep(cursorOf("2024-06-01 13:30:00", reverted.sys_id), present), {
      kind: "none",
    });
    assertEquals(requests(), before, "a cursor position is asked about once");

    // The row at the cursor is gone and the newest row an hour older: deleted or rolled back, a warning only.
    const gone = table.insert({ short_description: "deleted soon" }).sys_id;
    sim.drift.purge("incident", gone);
    assertEquals(await watch.emptySweep(cursorOf("2024-06-01 14:30:00", gone), present), { kind: "none" });
    assert(
      /is gone .* it was deleted, or the instance went back in time/.test(warnings.at(-1)!),
      warnings.at(-1),
    );
    assertEquals(warnings.length, 2);

    // The cursor the restart policy sets at the present names no row: nothing to ask, nothing to warn about.
    const asked = requests();
    assertEquals(await watch.emptySweep(cursorOf("2024-06-01 15:00:00", ""), present), { kind: "none" });
    assertEquals(requests(), asked, "a restarted cursor is not asked about");
    assertEquals(warnings.length, 2);

    // A clock a few seconds behind the mark is the safety lag's business, not a rollback.
    assertEquals(watch.clockBehind(present, present - 30_000), { kind: "none" });
    assertEquals(watch.clockBehind(present, present - 7_200_000), { kind: "reconcile" });
    assertEquals(watch.clockBehind(present, present - 7_200_500), { kind: "none" }, "one jump, told once");
    assertEquals(
      context.counter("tablesync_source_time_backwards_total", {
        table: "incident",
        alias: "inc",
        cause: "clock",
      }),
      1,
    );
  } finally {
    client.close();
    await sim.stop();
  }
});

Deno.test("time going backwards: the host's clock stepped forward an hour is not the instance going back; nothing is read again", async () => {
  const sim = await startSim({ seed: { incident: 5 } });
  const realNow = Date.now;
  let hostStep = 0;
  // Before the task starts: its instance clock estimate reads the local clock through Date.now.
  Date.now = () => realNow() + hostStep;
  try {
    const driven = await startTask(sourceConfig(sim, { inc: "incident" }));
    try {
      await pollUntil(driven, (r) => r.length >= 5);
      await pollUntilQuiet(driven, 5);
      // The host clock steps an hour forward; the instance's clock goes on as it was.
      sim.clock.setOffset(-3_600_000);
      hostStep = 3_600_000;
      const after = await pollUntilQuiet(driven, 10);
      const backwards = driven.context.counter("tablesync_source_time_backwards_total", {
        table: "incident",
        alias: "inc",
        cause: "clock",
      });
      assertEquals(backwards, 0, "a host clock step is not the instance's clock going back");
      assertEquals(after.length, 0, "no row is read again");
    } finally {
      Date.now = realNow;
      await stopTask(driven);
    }
  } finally {
    Date.now = realNow;
    await sim.stop();
  }
});
