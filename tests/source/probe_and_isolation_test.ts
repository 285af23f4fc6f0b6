/** The startup probe (access, cursor fields, time zone) and per-table failure isolation, through real HTTP. */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { StartupProbeError } from "../../src/source/startup_probe.ts";
import { TableSourceTask } from "../../src/source/task.ts";
import {
  insertRow,
  PASSWORD,
  pollUntil,
  propsOf,
  sourceConfig,
  startSim,
  startTask,
  stopTask,
  TestContext,
  USER,
} from "./support.ts";

Deno.test("probe: a table the user cannot read fails the start naming table, alias and the cursor fields", async () => {
  const sim = await startSim({
    faults: [{ table: "problem", fault: { kind: "status", status: 403, message: "Operation Failed" } }],
  });
  try {
    const raw = sourceConfig(sim, { inc: "incident", prb: "problem" });
    const task = new TableSourceTask();
    const context = new TestContext();
    const error = await assertRejects(() => task.start(raw, propsOf(raw), context), StartupProbeError);
    assertStringIncludes(error.message, "table problem (alias prb)");
    assertStringIncludes(error.message, "HTTP 403");
    assertStringIncludes(error.message, "sys_updated_on");
    context.abort();
    await task.stop();
  } finally {
    await sim.stop();
  }
});

Deno.test("probe: a cursor field the table does not return fails the start naming the field", async () => {
  const sim = await startSim();
  try {
    insertRow(sim, "incident", { sys_updated_on: "2024-01-01 00:00:00" });
    const raw = sourceConfig(sim, { inc: "incident" }, {
      "svc.table.inc.timestamp.field": "u_sys_updated_on",
    });
    const task = new TableSourceTask();
    const context = new TestContext();
    const error = await assertRejects(() => task.start(raw, propsOf(raw), context), StartupProbeError);
    assertStringIncludes(error.message, "table incident (alias inc)");
    assertStringIncludes(error.message, "field u_sys_updated_on");
    assertStringIncludes(error.message, "svc.table.inc.timestamp.field");
    context.abort();
    await task.stop();
  } finally {
    await sim.stop();
  }
});

Deno.test("probe: a filter naming a field the table lacks (inherited ones count) fails the start naming it", async () => {
  const sim = await startSim();
  try {
    insertRow(sim, "incident", { sys_updated_on: "2024-01-01 00:00:00" });
    // priority is inherited from task, caller_id.name is dot-walked: both are fine; categroy is a typo.
    const raw = sourceConfig(sim, { inc: "incident" }, {
      "svc.table.inc.query": "priority=1^caller_id.nameSTARTSWITHa^ORcategroy=network",
    });
    const task = new TableSourceTask();
    const context = new TestContext();
    const error = await assertRejects(() => task.start(raw, propsOf(raw), context), StartupProbeError);
    assertStringIncludes(error.message, "table incident (alias inc)");
    assertStringIncludes(error.message, "svc.table.inc.query names field categroy");
    assertStringIncludes(error.message, "would ignore the term and read every row");
    context.abort();
    await task.stop();
  } finally {
    await sim.stop();
  }
});

Deno.test("probe: a projection naming a field the table lacks fails the start naming it", async () => {
  const sim = await startSim();
  try {
    insertRow(sim, "incident", { sys_updated_on: "2024-01-01 00:00:00" });
    const raw = sourceConfig(sim, { inc: "incident" }, {
      "svc.table.inc.fields": "sys_id,sys_updated_on,caller_id.name,short_descripton",
    });
    const task = new TableSourceTask();
    const context = new TestContext();
    const error = await assertRejects(() => task.start(raw, propsOf(raw), context), StartupProbeError);
    assertStringIncludes(error.message, "svc.table.inc.fields names field short_descripton");
    assertStringIncludes(error.message, "would leave it out of every record");
    context.abort();
    await task.stop();
  } finally {
    await sim.stop();
  }
});

Deno.test("probe: warns when the integration user's time zone is not UTC, not when it is", async () => {
  for (const timeZone of ["America/New_York", "UTC"]) {
    const sim = await startSim({ users: [{ userName: USER, password: PASSWORD, timeZone }] });
    try {
      insertRow(sim, "incident", { sys_updated_on: "2024-01-15 12:00:00" });
      const driven = await startTask(sourceConfig(sim, { inc: "incident" }));
      await stopTask(driven);
      const warned = driven.context.warnings().some((l) => String(l.msg).includes("time zone is not UTC"));
      assertEquals(warned, timeZone !== "UTC", timeZone);
    } finally {
      await sim.stop();
    }
  }
});

Deno.test("isolation: a table refused with 403 backs off (stalled gauge with its cause) while another table keeps delivering", async () => {
  const sim = await startSim();
  try {
    const ids = [0, 1, 2].map((s) =>
      insertRow(sim, "incident", { sys_updated_on: `2024-03-03 03:03:0${s}` })
    );
    insertRow(sim, "problem", { sys_updated_on: "2024-03-03 03:03:00" });
    const driven = await startTask(sourceConfig(sim, { inc: "incident", prb: "problem" }));
    try {
      // Access is withdrawn after the start (the probe passed), for problem only.
      sim.faults.add({
        table: "problem",
        fault: { kind: "status", status: 403, message: "Operation Failed" },
      });
      const more = [3, 4].map((s) =>
        insertRow(sim, "incident", { sys_updated_on: `2024-03-03 03:03:0${s}` })
      );
      await pollUntil(driven, (r) => r.filter((x) => x.topic === "topic.inc").length >= 5);
      await pollUntil(
        driven,
        () =>
          driven.context.counter("tablesync_source_table_errors_total", { table: "problem", alias: "prb" }) >=
            1,
      );
      const incident = driven.records.filter((r) => r.topic === "topic.inc").map((r) => r.key);
      assertEquals(incident, [...ids, ...more]);
      const warning = driven.context.warnings().find((l) => String(l.msg).includes("other tables continue"));
      assert(warning !== undefined);
      assertStringIncludes(String(warning.msg), "HTTP 403");
      const stalled = { table: "problem", alias: "prb", cause: "http_403" };
      assertEquals(driven.context.counter("tablesync_source_table_stalled", stalled), 1, "backing off shows");
      assertEquals(
        driven.context.counter("tablesync_source_table_stalled", {
          ...stalled,
          table: "incident",
          alias: "inc",
        }),
        0,
      );
      // Access comes back: the next page succeeds and the gauge returns to 0.
      sim.faults.clear();
      await pollUntil(
        driven,
        () => driven.context.counter("tablesync_source_table_stalled", stalled) === 0,
        100,
      );
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("probe: a database view, registered as a table without dictionary columns, starts (its fields are not judged)", async () => {
  const sim = await startSim();
  try {
    insertRow(sim, "incident", { sys_updated_on: "2024-01-01 00:00:00" });
    // As on an instance: the view has its sys_db_object row, and no sys_dictionary rows for its columns.
    sim.table("sys_db_object").insert({ name: "incident_caller", label: "Incident caller", super_class: "" });
    const raw = sourceConfig(sim, { calls: "incident_caller" }, {
      "svc.table.calls.timestamp.field": "inc_sys_updated_on",
      "svc.table.calls.sys.id.field": "inc_sys_id",
      "svc.table.calls.query": "inc_active=true",
    });
    const task = new TableSourceTask();
    const context = new TestContext();
    await task.start(raw, propsOf(raw), context);
    context.abort();
    await task.stop();
  } finally {
    await sim.stop();
  }
});
