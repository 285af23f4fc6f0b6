/** One API request as the route handlers see it. */
import type { Principal } from "../auth/users.ts";
import type { ActiveFaults } from "../faults.ts";
import type { JournalEntry } from "../journal.ts";
import type { Quota } from "../limits/quota.ts";
import type { Viewer } from "../http/serialize.ts";
import type { SimState } from "../state.ts";

/** Route handlers answer with these (http/answer.ts). */
export { type ApiResponse, bodyOf } from "../http/answer.ts";

export interface ApiRequest {
  state: SimState;
  request: Request;
  method: string;
  url: URL;
  params: URLSearchParams;
  /** "v1", "v2" or undefined for the unversioned path (which behaves as v2). */
  version?: string;
  table: string;
  sysId?: string;
  principal: Principal;
  viewer: Viewer;
  faults: ActiveFaults;
  entry: JournalEntry;
  /** Scheme and authority used in links (publicOrigin option, or the request's own origin). */
  origin: string;
  /** The transaction quota of this request, when one is configured: a list cancels its body when it runs out. */
  quota?: Quota;
  /** Response headers prepared by the server (Date, Content-Type, …). */
  headers: Headers;
}

/** Boolean query parameters: "true" (any case) is true, anything else false. */
export function flag(params: URLSearchParams, name: string): boolean {
  return (params.get(name) ?? "").toLowerCase() === "true";
}

/** Prefix of reference links for this request (keeps the API version, as captured responses do). */
export function linkBase(req: ApiRequest): string {
  return `${req.origin}/api/now/${req.version ? req.version + "/" : ""}table/`;
}

export function displayMode(params: URLSearchParams): "false" | "true" | "all" {
  const v = (params.get("sysparm_display_value") ?? "false").toLowerCase();
  return v === "true" || v === "all" ? v : "false";
}
