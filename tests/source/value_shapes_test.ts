/**
 * Record shape in every schema mode × display value × envelope, checked on Connect values and schemas (the bytes
 * through converters are checked by the runtime's tests): key, timestamp, headers, value.
 */
import { assert, assertEquals } from "../support/assert.ts";
import type { SourceRecord } from "../../src/connect/record.ts";
import { Struct } from "../../src/connect/struct.ts";
import type { Schema } from "../../src/connect/schema.ts";
import type { RawConfig } from "../../src/common/props.ts";
import type { Simulator } from "../../src/sim/mod.ts";
import { insertRow, pollUntil, sourceConfig, startSim, startTask, stopTask } from "./support.ts";

const TS = "2024-05-01 10:00:00";
const FIELDS = "sys_id,sys_updated_on,short_description,priority,sys_domain,opened_at";

async function oneRecord(sim: Simulator, extra: RawConfig): Promise<SourceRecord> {
  const driven = await startTask(sourceConfig(sim, { inc: "incident" }, {
    "svc.table.inc.fields": FIELDS,
    "svc.table.inc.start.timestamp": TS,
    ...extra,
  }));
  try {
    const [record] = await pollUntil(driven, (r) => r.length >= 1);
    return record;
  } finally {
    await stopTask(driven);
  }
}

function fieldTypes(schema: Schema): Record<string, string> {
  return Object.fromEntries(
    schema.fields().map((f) => [f.name, `${f.schema.type}${f.schema.isOptional ? "?" : ""}`]),
  );
}

function structToObject(s: Struct): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of s.schema.fields()) {
    const v = s.get(f);
    out[f.name] = v instanceof Struct ? structToObject(v) : v;
  }
  return out;
}

async function withRow(test: (sim: Simulator, sysId: string) => Promise<void>): Promise<void> {
  const sim = await startSim();
  try {
    const sysId = insertRow(sim, "incident", {
      sys_updated_on: TS,
      sys_created_on: TS,
      sys_mod_count: "3",
      short_description: "printer on fire",
      priority: "2",
      sys_domain: "global",
      opened_at: "2024-04-30 08:15:00",
    });
    await test(sim, sysId);
  } finally {
    await sim.stop();
  }
}

Deno.test("record: key, timestamp, headers and partition are the same in every mode", async () => {
  await withRow(async (sim, sysId) => {
    for (const mode of ["schemaless", "strings", "typed"]) {
      const r = await oneRecord(sim, {
        "svc.source.schema.mode": mode,
        ...(mode === "typed" ? { "svc.source.typed.fields": "priority:int32" } : {}),
        ...(mode === "schemaless" ? {} : { "value.converter.schemas.enable": "true" }),
      });
      assertEquals(r.topic, "topic.inc");
      assertEquals(r.key, sysId);
      assertEquals(r.keySchema?.type, "STRING");
      assertEquals(r.keySchema?.isOptional, false);
      assertEquals(r.timestamp, Date.UTC(2024, 4, 1, 10, 0, 0));
      const headers = Object.fromEntries([...r.headers].map((h) => [h.key, h.value]));
      const host = new URL(sim.url).hostname;
      assertEquals(headers["svc.table"], "incident");
      assertEquals(headers["svc.instance"], host);
      assertEquals(headers["svc.source.operation"], "UPSERT");
      assertEquals(headers["svc.schema.mode"], mode);
      assert(typeof headers["svc.extracted_at"] === "number" && headers["svc.extracted_at"] > 0);
      assertEquals(r.sourcePartition?.table, "incident");
      assertEquals(r.sourcePartition?.instance, host);
      assertEquals(r.sourceOffset, { timestamp: TS, sys_id: sysId });
    }
  });
});

Deno.test("schemaless: the row as returned under false, all and true, with and without reference links", async () => {
  await withRow(async (sim, sysId) => {
    const plain = await oneRecord(sim, {});
    assertEquals(plain.valueSchema, null);
    assertEquals(plain.value, {
      sys_id: sysId,
      sys_updated_on: TS,
      short_description: "printer on fire",
      priority: "2",
      sys_domain: "global",
      opened_at: "2024-04-30 08:15:00",
      sys_mod_count: "3",
    });

    const linked = (await oneRecord(sim, { "svc.table.inc.exclude.reference.link": "false" }))
      .value as Record<
        string,
        unknown
      >;
    assertEquals(linked.sys_domain, {
      link: `${sim.url}/api/now/table/sys_user_group/global`,
      value: "global",
    });

    const all = (await oneRecord(sim, { "svc.table.inc.display.value": "all" })).value as Record<
      string,
      unknown
    >;
    assertEquals(all.priority, { display_value: "2 - High", value: "2" });
    assertEquals(all.sys_updated_on, { display_value: TS, value: TS });
    assertEquals(all.sys_domain, { display_value: "global", value: "global" });

    const shown = (await oneRecord(sim, { "svc.table.inc.display.value": "true" })).value as Record<
      string,
      unknown
    >;
    assertEquals(shown.priority, "2 - High");
    assertEquals(shown.sys_domain, "global");
    assertEquals(shown.sys_updated_on, TS, "cursor fields stay raw");
    assertEquals(shown.sys_id, sysId);
    const wire = sim.journal.find({ route: "GET /api/now/table/incident" }).at(-1)!;
    assertEquals(wire.params.sysparm_display_value, "all", "display value true is fetched as all");

    const shownLinked = (await oneRecord(sim, {
      "svc.table.inc.display.value": "true",
      "svc.table.inc.exclude.reference.link": "false",
    })).value as Record<string, unknown>;
    assertEquals(shownLinked.sys_domain, "global", "true is flat even with reference links kept");
  });
});

Deno.test("strings: a Struct of optional strings; nested Structs under all and for linked references", async () => {
  await withRow(async (sim, sysId) => {
    const strings = { "svc.source.schema.mode": "strings", "value.converter.schemas.enable": "true" };
    const r = await oneRecord(sim, strings);
    const s = r.value as Struct;
    assert(s instanceof Struct);
    assertEquals(r.valueSchema, s.schema);
    assertEquals(s.schema.name, "tablesync.incident");
    assertEquals(s.schema.version, 1);
    assertEquals(fieldTypes(s.schema), {
      sys_id: "STRING?",
      sys_updated_on: "STRING?",
      short_description: "STRING?",
      priority: "STRING?",
      sys_domain: "STRING?",
      opened_at: "STRING?",
      sys_mod_count: "STRING?",
    });
    assertEquals(s.get("sys_id"), sysId);
    assertEquals(s.get("priority"), "2");

    const all = (await oneRecord(sim, { ...strings, "svc.table.inc.display.value": "all" })).value as Struct;
    assertEquals(fieldTypes(all.schema.field("priority")!.schema), {
      value: "STRING?",
      display_value: "STRING?",
      link: "STRING?",
    });
    assertEquals(structToObject(all).priority, { value: "2", display_value: "2 - High", link: null });
    assertEquals(structToObject(all).sys_updated_on, { value: TS, display_value: TS, link: null });

    const allLinked = (await oneRecord(sim, {
      ...strings,
      "svc.table.inc.display.value": "all",
      "svc.table.inc.exclude.reference.link": "false",
    })).value as Struct;
    assertEquals(structToObject(allLinked).sys_domain, {
      value: "global",
      display_value: "global",
      link: `${sim.url}/api/now/table/sys_user_group/global`,
    });

    const linked = (await oneRecord(sim, { ...strings, "svc.table.inc.exclude.reference.link": "false" }))
      .value as Struct;
    assertEquals(structToObject(linked).sys_domain, {
      value: "global",
      link: `${sim.url}/api/now/table/sys_user_group/global`,
    });
    assertEquals(linked.get("priority"), "2");

    const shown = (await oneRecord(sim, { ...strings, "svc.table.inc.display.value": "true" }))
      .value as Struct;
    assertEquals(shown.get("priority"), "2 - High");
    assertEquals(shown.get("sys_updated_on"), TS);
  });
});

Deno.test("typed: declared fields typed, others optional strings; under all the nested value is typed", async () => {
  await withRow(async (sim) => {
    const typed = {
      "svc.source.schema.mode": "typed",
      "svc.source.typed.fields": "priority:int32,sys_updated_on:timestamp,opened_at:timestamp",
      "value.converter.schemas.enable": "true",
    };
    const s = (await oneRecord(sim, typed)).value as Struct;
    assertEquals(s.get("priority"), 2);
    assertEquals(s.get("sys_updated_on"), new Date(Date.UTC(2024, 4, 1, 10, 0, 0)));
    assertEquals(s.schema.field("opened_at")!.schema.name, "org.apache.kafka.connect.data.Timestamp");
    assertEquals(s.schema.field("short_description")!.schema.type, "STRING");

    const all = (await oneRecord(sim, { ...typed, "svc.table.inc.display.value": "all" })).value as Struct;
    assertEquals(structToObject(all).priority, { value: 2, display_value: "2 - High", link: null });

    const shown = (await oneRecord(sim, { ...typed, "svc.table.inc.display.value": "true" })).value as Struct;
    assertEquals(shown.get("priority"), 2, "under true a typed field keeps its raw value");
  });
});

Deno.test("envelope: before null, after the value, source, op u, ts_ms, in every mode", async () => {
  await withRow(async (sim, sysId) => {
    const env = { "svc.source.emit.envelope": "true" };
    const plain = await oneRecord(sim, env);
    const v = plain.value as Record<string, unknown>;
    const host = new URL(sim.url).hostname;
    assertEquals(v.before, null);
    assertEquals((v.after as Record<string, unknown>).sys_id, sysId);
    assertEquals(v.source, { table: "incident", instance: host });
    assertEquals(v.op, "u");
    assertEquals(v.ts_ms, plain.headers.lastWithName("svc.extracted_at")!.value);

    for (const mode of ["strings", "typed"]) {
      const r = await oneRecord(sim, {
        ...env,
        "svc.source.schema.mode": mode,
        "svc.source.typed.fields": "priority:int32",
        "value.converter.schemas.enable": "true",
      });
      const e = r.value as Struct;
      assertEquals(e.schema.name, "tablesync.incident.Envelope");
      assertEquals(e.schema.fields().map((f) => f.name), ["before", "after", "source", "op", "ts_ms"]);
      assertEquals(e.get("before"), null);
      assertEquals(e.get("op"), "u");
      const after = e.get("after") as Struct;
      assertEquals(after.schema.isOptional, true);
      assertEquals(after.get("priority"), mode === "typed" ? 2 : "2");
      assertEquals(structToObject(e.get("source") as Struct), { table: "incident", instance: host });
      assertEquals(typeof e.get("ts_ms"), "number");
    }
  });
});
