/**
 * What a source record's value must be, computed independently from the simulator's own REST answers for the
 * same rows (display false and all), not from the source's code. Shared by the converter matrix tests.
 */
import { parseDateTimeUtc } from "../../src/config/validators.ts";

export type Row = Record<string, unknown>;
export const ROWS = 12;
export const PASSWORD = "pw-Matrix-Wren-4";
const CURSOR_FIELDS = new Set(["sys_updated_on", "sys_id"]);
export const TYPED = "reassignment_count:int32,active:boolean,opened_at:timestamp,sys_mod_count:int64";

export async function apiRows(url: string, display: "false" | "all"): Promise<Map<string, Row>> {
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
export function expectedValue(mode: string, display: string, raw: Row, all: Row): Row {
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

export function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted((value as Row)[k])]));
  }
  return value;
}

/** One matrix cell's source connector: the simulator's incident table into `topic` in the given shape. */
export function matrixSourceConfig(
  simUrl: string,
  cell: { topic: string; mode: string; display: string; envelope: boolean },
  converter: Record<string, string | boolean>,
): Record<string, string | boolean> {
  return {
    "connector.class": "TableSourceConnector",
    "svc.url": simUrl,
    "svc.auth.username": "admin",
    "svc.auth.password": PASSWORD,
    "svc.tables": "incident",
    "svc.table.incident.name": "incident",
    "svc.table.incident.topic": cell.topic,
    "svc.table.incident.display.value": cell.display,
    "svc.source.schema.mode": cell.mode,
    "svc.source.emit.envelope": cell.envelope,
    ...(cell.mode === "typed" ? { "svc.source.typed.fields": TYPED } : {}),
    ...converter,
  };
}
