/**
 * A small local HTTP server that keeps sessions the way an instance does (instance-limits.md §2–3), for the
 * client's session and load-signal tests: a request without a `JSESSIONID` cookie opens a session (Set-Cookie
 * JSESSIONID, glide_session_store, glide_user_route, BIGipServerpool_test); each response says
 * `Server-Timing: sem_wait;dur=N, sesh_wait;dur=M` from a semaphore of `threads` and the session's own queue.
 * It records what a test asserts on: sessions opened, the most requests one session had at once.
 */
import { sleepEndingOnAbort as delay } from "../../src/common/delay.ts";

export interface SessionServerOptions {
  /** Semaphore threads; more requests queue (FIFO) and report the wait as sem_wait. Default: unlimited. */
  threads?: number;
  /** Time a request holds its thread, in ms. Default 5. */
  workMs?: number;
  /** Answers the test chooses for the n-th request (1-based) instead of the normal one. */
  answer?: (n: number, request: Request, session: string) => Response | null;
}

export interface SessionServer {
  url: string;
  sessionsOpened: number;
  /** Most requests of one session in the server at once (1 when sessions are used as they should be). */
  maxPerSession: number;
  requests: number;
  /** The Cookie header of each request, in arrival order. */
  cookies: (string | null)[];
  /** Ends a session: its next request is answered 401 (as an expired or logged-out session is). */
  expire(session: string): void;
  close(): Promise<void>;
}

export function startSessionServer(options: SessionServerOptions = {}): SessionServer {
  const { threads = Infinity, workMs = 5 } = options;
  const active = new Map<string, number>();
  const expired = new Set<string>();
  let busy = 0;
  const queue: (() => void)[] = [];
  const state = {
    sessionsOpened: 0,
    maxPerSession: 0,
    requests: 0,
    cookies: [] as (string | null)[],
  };
  const takeThread = async (): Promise<number> => {
    const queuedAt = performance.now();
    if (busy >= threads) await new Promise<void>((resolve) => queue.push(resolve));
    else busy++;
    return performance.now() - queuedAt;
  };
  const giveThread = () => {
    const next = queue.shift();
    if (next) next();
    else busy--;
  };
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (request) => {
    const n = ++state.requests;
    const cookie = request.headers.get("cookie");
    state.cookies.push(cookie);
    let session = /JSESSIONID=([^;]+)/.exec(cookie ?? "")?.[1] ?? null;
    const headers = new Headers({ "content-type": "application/json" });
    if (session !== null && expired.has(session)) return new Response(null, { status: 401 });
    if (session === null) {
      session = `S${++state.sessionsOpened}`;
      headers.append("set-cookie", `JSESSIONID=${session}; Path=/; HttpOnly`);
      headers.append("set-cookie", `glide_session_store=${session}-store; Max-Age=1800; Path=/`);
      headers.append("set-cookie", `glide_user_route=glide.${n}; Path=/`);
      headers.append("set-cookie", `BIGipServerpool_test=node${n % 2}; Path=/`);
    }
    const now = (active.get(session) ?? 0) + 1;
    active.set(session, now);
    state.maxPerSession = Math.max(state.maxPerSession, now);
    try {
      const chosen = options.answer?.(n, request, session);
      if (chosen) {
        for (const [name, value] of headers) chosen.headers.append(name, value);
        return chosen;
      }
      const semWait = await takeThread();
      try {
        await delay(workMs);
      } finally {
        giveThread();
      }
      headers.set("server-timing", `sem_wait;dur=${Math.round(semWait)}, sesh_wait;dur=0`);
      const body = request.method === "POST" ? { result: { sys_id: `row${n}` } } : { result: [] };
      return new Response(JSON.stringify(body), { status: request.method === "POST" ? 201 : 200, headers });
    } finally {
      active.set(session, active.get(session)! - 1);
    }
  });
  return Object.assign(state, {
    url: `http://127.0.0.1:${server.addr.port}`,
    expire: (session: string) => void expired.add(session),
    close: () => server.shutdown(),
  });
}
