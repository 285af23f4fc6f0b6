/** Helpers of the tests of the instance's limits: cookies, Server-Timing, waiting for requests in flight. */
import type { Simulator } from "../../src/sim/mod.ts";
import { AUTH } from "./helpers.ts";

/** The `Cookie` header a cookie jar would send back after this response ("" when it set none). */
export function cookiesOf(res: Response): string {
  return res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
}

/** One cookie's value from a Set-Cookie list. */
export function cookieValue(res: Response, name: string): string | undefined {
  for (const c of res.headers.getSetCookie()) {
    const pair = c.split(";")[0];
    if (pair.startsWith(`${name}=`)) return pair.slice(name.length + 1);
  }
  return undefined;
}

/** `{ sem_wait, sesh_wait }` from a Server-Timing header. */
export function timing(res: Response): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (res.headers.get("server-timing") ?? "").split(",")) {
    const m = /^\s*([a-z_]+);dur=(\d+(?:\.\d+)?)\s*$/.exec(part);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** GET a small list page (with `cookie` when given); the body is read, the response returned with its text. */
export async function call(
  sim: Simulator,
  { cookie, path = "/api/now/table/incident?sysparm_limit=1", method = "GET", body }: {
    cookie?: string;
    path?: string;
    method?: string;
    body?: unknown;
  } = {},
): Promise<{ res: Response; text: string }> {
  const headers: Record<string, string> = { ...AUTH, accept: "application/json" };
  if (cookie) headers.cookie = cookie;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { res, text: await res.text() };
}

/** Resolves once the simulator has `n` requests in flight (a request the test holds open is running). */
export async function untilInFlight(sim: Simulator, n: number): Promise<void> {
  while (sim.counters.inFlight < n) await new Promise((r) => setTimeout(r, 5));
}
