/** svc.source.schema.evolution through real HTTP: fail (bad row), backward (null, warned once), permissive (STRING in a new version). */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { Struct } from "../../src/connect/struct.ts";
import type { Simulator } from "../../src/sim/mod.ts";
import { BadRowError } from "../../src/source/bad_row.ts";
import { insertRow, pollUntil, sourceConfig, startSim, startTask, stopTask, TestContext } from "./support.ts";

/** Three rows; the middle one's `order` is not an int32. */
function seed(sim: Simulator): string[] {
  return ["10", "not-a-number", "30"].map((order, i) =>
    insertRow(sim, "incident", { sys_updated_on: `2024-04-04 04:04:0${i}`, order })
  );
}

function config(sim: Simulator, evolution: string) {
  return sourceConfig(sim, { inc: "incident" }, {
    "svc.source.schema.mode": "typed",
    "svc.source.typed.fields": "order:int32",
    "svc.source.schema.evolution": evolution,
    "svc.table.inc.fields": "sys_id,sys_updated_on,order",
    "svc.table.inc.start.timestamp": "2024-04-04 00:00:00",
    "value.converter.schemas.enable": "true",
  });
}

Deno.test("evolution fail: a mismatch is a bad row that fails the task, naming table, alias, sys id and field", async () => {
  const sim = await startSim();
  try {
    const ids = seed(sim);
    const driven = await startTask(config(sim, "fail"));
    try {
      const error = await assertRejects(() => pollUntil(driven, () => false), BadRowError);
      assertStringIncludes(error.message, "table incident (alias inc)");
      assertStringIncludes(error.message, `sys id ${ids[1]}`);
      assertStringIncludes(error.message, "field order");
      assert(!error.message.includes("not-a-number"), "field values are not put in messages");
      assertEquals(driven.context.badRows.length, 1);
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("evolution backward: the field is null, the schema unchanged, one warning per table and field", async () => {
  const sim = await startSim();
  try {
    seed(sim);
    insertRow(sim, "incident", { sys_updated_on: "2024-04-04 04:04:05", order: "also bad" });
    const driven = await startTask(config(sim, "backward"));
    try {
      const records = await pollUntil(driven, (r) => r.length >= 4);
      const values = records.map((r) => (r.value as Struct).get("order"));
      assertEquals(values, [10, null, 30, null]);
      assertEquals(new Set(records.map((r) => r.valueSchema)).size, 1, "one schema");
      assertEquals(records[0].valueSchema!.field("order")!.schema.type, "INT32");
      const warnings = driven.context.lines.filter((l) => String(l.msg).includes("evolution=backward"));
      assertEquals(warnings.length, 1);
      assertEquals(warnings[0].field, "order");
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("evolution permissive: the field is re-declared optional STRING in a new schema version with the raw value", async () => {
  const sim = await startSim();
  try {
    seed(sim);
    const driven = await startTask(config(sim, "permissive"));
    try {
      const records = await pollUntil(driven, (r) => r.length >= 3);
      const [a, b, c] = records.map((r) => r.value as Struct);
      assertEquals(a.get("order"), 10);
      assertEquals(a.schema.field("order")!.schema.type, "INT32");
      assertEquals(b.get("order"), "not-a-number");
      assertEquals(b.schema.field("order")!.schema.type, "STRING");
      assert(b.schema.field("order")!.schema.isOptional);
      assertEquals(b.schema.version, a.schema.version! + 1);
      assertEquals(c.get("order"), "30", "the field stays STRING");
      assertEquals(c.schema, b.schema);
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});

Deno.test("evolution fail with errors.tolerance=all: the bad row is reported for the dead letter queue and polling goes on", async () => {
  const sim = await startSim();
  try {
    const ids = seed(sim);
    const driven = await startTask(
      { ...config(sim, "fail"), "errors.tolerance": "all" },
      new TestContext(true),
    );
    try {
      const records = await pollUntil(driven, (r) => r.length >= 2);
      assertEquals(records.map((r) => r.key), [ids[0], ids[2]]);
      assertEquals(driven.context.badRows.length, 1);
      assertEquals(driven.context.badRows[0].key, ids[1]);
      assertEquals(driven.context.badRows[0].topic, "topic.inc");
    } finally {
      await stopTask(driven);
    }
  } finally {
    await sim.stop();
  }
});
