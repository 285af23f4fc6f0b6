/**
 * Every cell of schema mode × display value × envelope × converter, through the daemon, checked on the bytes
 * Kafka holds. Expected values are computed independently from the simulator's own REST answers for the same
 * rows (display false and all), not from the source's code. Invalid pairings (schemaless with a schema-bearing
 * converter) are rejected at validation, which tests/config covers.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaMock } from "../support/kafka_mock.ts";
import { type KcatRecord, readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess, waitFor } from "../support/daemon_process.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { parseDateTimeUtc } from "../../src/config/validators.ts";

type Row = Record<string, unknown>;
const ROWS = 12;
const PASSWORD = "pw-Matrix-Wren-4";
const CURSOR_FIELDS = new Set(["sys_updated_on", "sys_id"]);
const TYPED = "reassignment_count:int32,active:boolean,opened_at:timestamp,sys_mod_count:int64";

async function apiRows(url: string, display: "false" | "all"): Promise<Map<string, Row>> {
  const res = await fetch(
    `${url}/api/now/table/incident?sysparm_display_value=${display}&sysparm_exclude_reference_link=true&sysparm_limit=1000`,
    { headers: { authorization: `Basic ${btoa(`admin:${PASSWORD}`)}`, accept: "application/json" } },
  );
  const body = await res.json();
  return new Map((body.result as Row[]).map((r) => {
    const id = display === "all" ? (r.sys_id as Row).value as string : r.sys_id as string;
    return [id, r];
  }));
}

function typedValue(field: string, raw: string): unknown {
  if (!TYPED.includes(`${field}:`)) return raw;
  if (raw === "") return null;
  switch (field) {
    case "reassignment_count":
    case "sys_mod_count":
      return Number(raw);
    case "active":
      return raw === "true";
    case "opened_at":
      return parseDateTimeUtc(raw);
    default:
      return raw;
  }
}

/** What the value must be for one row in one cell (as plain JSON, struct nulls included). */
function expectedValue(mode: string, display: string, raw: Row, all: Row): Row {
  const typed = (f: string, v: string) => mode === "typed" ? typedValue(f, v) : v;
  const out: Row = {};
  for (const f of Object.keys(raw)) {
    const r = raw[f] as string;
    const a = all[f] as { value: string; display_value: string };
    if (display === "false") out[f] = typed(f, r);
    else if (display === "true") {
      const keepRaw = CURSOR_FIELDS.has(f) || (mode === "typed" && TYPED.includes(`${f}:`));
      out[f] = keepRaw ? typed(f, r) : a.display_value;
    } else {
      const nested: Row = { display_value: a.display_value, value: typed(f, a.value) };
      if (mode !== "schemaless") nested.link = null;
      out[f] = nested;
    }
  }
  return out;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted((value as Row)[k])]));
  }
  return value;
}

async function runMode(mode: "schemaless" | "strings" | "typed") {
  const sim = await startSimulator({ port: 0, seed: { incident: ROWS }, users: [`admin:${PASSWORD}`] });
  await using kafka = startKafkaMock();
  const cells: { name: string; display: string; envelope: boolean; schemas: boolean; topic: string }[] = [];
  for (const display of ["false", "true", "all"]) {
    for (const envelope of [false, true]) {
      for (const schemas of mode === "schemaless" ? [false] : [false, true]) {
        const name = `${mode}-${display}-${envelope ? "env" : "plain"}-${schemas ? "schemas" : "noschemas"}`;
        cells.push({ name, display, envelope, schemas, topic: `m.${name}` });
        kafka.createTopic(`m.${name}`, 1);
      }
    }
  }
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: cells.map((c) => ({
      name: c.name,
      config: {
        "connector.class": "TableSourceConnector",
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": PASSWORD,
        "svc.tables": "incident",
        "svc.table.incident.name": "incident",
        "svc.table.incident.topic": c.topic,
        "svc.table.incident.display.value": c.display,
        "svc.source.schema.mode": mode,
        "svc.source.emit.envelope": c.envelope,
        ...(mode === "typed" ? { "svc.source.typed.fields": TYPED } : {}),
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": c.schemas,
      },
    })),
  });
  try {
    const raw = await apiRows(sim.url, "false");
    const all = await apiRows(sim.url, "all");
    const host = new URL(sim.url).hostname;
    for (const cell of cells) {
      // kcat reads without a consumer group: an independent client, and no group join per topic.
      const records: KcatRecord[] = (await waitFor(
        async () => {
          const got = await readTopicWithKcat(kafka.bootstrapServers, cell.topic);
          return got.length >= ROWS ? got : null;
        },
        30_000,
        `${ROWS} records on ${cell.topic}`,
      ).catch(() => null)) ?? await readTopicWithKcat(kafka.bootstrapServers, cell.topic);
      assertEquals(records.length, ROWS, `${cell.name}: ${daemon.output().slice(-1500)}`);
      for (const record of records) {
        const id = record.key!;
        assert(raw.has(id), `${cell.name}: key ${id} is not a sys_id`);
        assertEquals(
          record.timestamp,
          parseDateTimeUtc(raw.get(id)!.sys_updated_on as string),
          `${cell.name} timestamp`,
        );
        assertEquals(record.headers["svc.table"], "incident");
        assertEquals(record.headers["svc.instance"], host);
        assertEquals(record.headers["svc.source.operation"], "UPSERT");
        assertEquals(record.headers["svc.schema.mode"], mode);
        assert(/^\d+$/.test(record.headers["svc.extracted_at"]), `${cell.name}: svc.extracted_at`);
        let value = JSON.parse(record.value!);
        if (cell.schemas) {
          assertEquals(Object.keys(value).sort(), ["payload", "schema"], cell.name);
          assertEquals(value.schema.type, "struct", cell.name);
          value = value.payload;
        }
        const expected = expectedValue(mode, cell.display, raw.get(id)!, all.get(id)!);
        if (cell.envelope) {
          assertEquals(value.before, null, cell.name);
          assertEquals(value.op, "u", cell.name);
          assertEquals(value.source, { table: "incident", instance: host }, cell.name);
          assert(typeof value.ts_ms === "number", `${cell.name}: ts_ms`);
          value = value.after;
        }
        assertEquals(sorted(value), sorted(expected), `${cell.name} value of ${id}`);
      }
    }
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
}

Deno.test("schemaless × display × envelope: bytes on the topic", () => runMode("schemaless"));
Deno.test("strings × display × envelope × JSON with and without schemas: bytes on the topic", () =>
  runMode("strings"));
Deno.test("typed × display × envelope × JSON with and without schemas: bytes on the topic", () =>
  runMode("typed"));
