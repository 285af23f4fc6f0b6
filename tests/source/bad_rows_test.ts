/**
 * Bad rows (sys id missing or unusable) under svc.source.bad.row.behavior fail and skip, through real HTTP. The
 * sys id field is pointed at correlation_id (as a database view would point it at a prefixed column), so some
 * rows have an empty or unusable id.
 */
import { assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import type { Simulator } from "../../src/sim/mod.ts";
import { BadRowError } from "../../src/source/bad_row.ts";
import { insertRow, pollUntil, sourceConfig, startSim, startTask, stopTask, TestContext } from "./support.ts";

function seed(sim: Simulator): void {
  ["id-a", "", "id-c", "bad^id", "id-e"].forEach((correlation_id, i) =>
    insertRow(sim, "incident", { sys_updated_on: `2024-05-05 05:05:0${i}`, correlation_id })
  );
}

function config(sim: Simulator, behavior: string, tolerance = "none") {
  return sourceConfig(sim, { inc: "incident" }, {
    "svc.table.inc.sys.id.field": "correlation_id",
    "svc.table.inc.fields": "correlation_id,sys_updated_on",
    "svc.table.inc.start.timestamp": "2024-05-05 00:00:00",
    "svc.source.bad.row.behavior": behavior,
    "svc.source.startup.probe": "false",
    "errors.tolerance": tolerance,
  });
}

Deno.test("bad row, fail: the task fails naming the table, alias, sys id and field", async () => {
  const sim = await startSim();
  try {
    seed(sim);
    const driven = await startTask(config(sim, "fail"));
    try {
      const error = await assertRejects(() => pollUntil(driven, () => false), BadRowError);
      assertStringIncludes(error.message, "table incident (alias inc)");
      assertStringIncludes(error.message, "field correlation_id");
      assertStringIncludes(error.message, "sys id <none>");
      assertEquals(driven.context.badRows.length, 1);
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("bad row, skip: logged, counted and skipped; good rows keep flowing", async () => {
  const sim = await startSim();
  try {
    seed(sim);
    const driven = await startTask(config(sim, "skip"));
    try {
      const records = await pollUntil(driven, (r) => r.length >= 3);
      assertEquals(records.map((r) => r.key), ["id-a", "id-c", "id-e"]);
      assertEquals(
        driven.context.counter("tablesync_source_bad_rows_total", {
          table: "incident",
          alias: "inc",
          behavior: "skip",
        }),
        2,
      );
      const logged = driven.context.lines.filter((l) => String(l.msg).startsWith("bad row"));
      assertEquals(logged.length, 2);
      assertEquals(logged.map((l) => l.sys_id), [null, "bad^id"]);
      assertEquals(driven.context.badRows.length, 0, "without errors.tolerance=all nothing goes to the DLQ");
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("bad row, skip with errors.tolerance=all: also reported for the dead letter queue", async () => {
  const sim = await startSim();
  try {
    seed(sim);
    const driven = await startTask(config(sim, "skip", "all"), new TestContext(true));
    try {
      await pollUntil(driven, (r) => r.length >= 3);
      assertEquals(driven.context.badRows.map((b) => b.topic), ["topic.inc", "topic.inc"]);
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});
