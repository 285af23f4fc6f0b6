/** Shared helpers of the simulator tests. */
import type { Simulator } from "../../src/sim/mod.ts";

export const AUTH = { authorization: "Basic " + btoa("admin:secret") };

export interface ListAnswer {
  status: number;
  headers: Headers;
  body: any;
}

export async function get(
  sim: Simulator,
  path: string,
  params: Record<string, string> = {},
  headers = AUTH,
): Promise<ListAnswer> {
  const qs = new URLSearchParams(params).toString();
  const res = await fetch(`${sim.url}${path}${qs ? "?" + qs : ""}`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** sys_ids of a list query on a table. */
export async function query(
  sim: Simulator,
  table: string,
  q: string,
  extra: Record<string, string> = {},
): Promise<string[]> {
  const res = await get(sim, `/api/now/table/${table}`, {
    sysparm_query: q,
    sysparm_fields: "sys_id",
    ...extra,
  });
  if (res.status !== 200) throw new Error(`query ${q}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result.map((r: { sys_id: string }) => r.sys_id);
}

export async function send(
  sim: Simulator,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers: { ...AUTH, "content-type": "application/json", accept: "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}
