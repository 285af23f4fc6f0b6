/**
 * A tiny router: method + path pattern (`/connectors/:name/tasks/:task/status`) → handler. Path parameters are
 * URL-decoded. Unknown paths answer 404 and known paths with another method 405, both in Connect's error shape.
 */
import { ConnectRestError } from "../runtime/herder/connect_rest_error.ts";

export type Params = Record<string, string>;
export type Handler = (request: Request, params: Params, url: URL) => Promise<Response> | Response;

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
}

export class Router {
  #routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler): this {
    this.#routes.push({ method, segments: pattern.split("/").filter(Boolean), handler });
    return this;
  }

  /** Whether some route has this path (any method). */
  knows(url: URL): boolean {
    const parts = url.pathname.split("/").filter(Boolean);
    return this.#routes.some((route) => matchSegments(route.segments, parts) !== null);
  }

  /** Finds the handler for a request, or throws ConnectRestError 404/405. */
  match(method: string, url: URL): { handler: Handler; params: Params } {
    const parts = url.pathname.split("/").filter(Boolean);
    let pathMatched = false;
    for (const route of this.#routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      pathMatched = true;
      if (route.method === method) return { handler: route.handler, params };
    }
    if (pathMatched) throw new ConnectRestError(405, `HTTP ${method} not allowed on ${url.pathname}`);
    throw new ConnectRestError(404, `Not found: ${url.pathname}`);
  }
}

function matchSegments(pattern: string[], parts: string[]): Params | null {
  if (pattern.length !== parts.length) return null;
  const params: Params = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.startsWith(":")) {
      try {
        params[p.slice(1)] = decodeURIComponent(parts[i]);
      } catch {
        return null;
      }
    } else if (p !== parts[i]) return null;
  }
  return params;
}
