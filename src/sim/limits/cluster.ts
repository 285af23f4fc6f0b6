/**
 * The instance's nodes behind a load balancer (instance-limits.md §2, §3): the balancer pins a client that sends
 * its affinity cookie (or `glide_user_route`) to that node and spreads cookie-less requests round robin; each node
 * keeps its own sessions and API_INT semaphore. `admit` is the door a request passes before it runs: the session
 * (a new one without cookies), the session lock (202 past `maxWaiters`), a thread of the node's semaphore (a bare
 * 429 when its queue is full), and it says how long the request waited for each (Server-Timing).
 */
import { balancerValue, parseCookies, setCookie } from "./cookies.ts";
import { CANCELLED_BODY, type Quota, type QuotaShape } from "./quota.ts";
import { Semaphore } from "./semaphore.ts";
import { type Session, SessionTable } from "./session.ts";
import type { Counters } from "../counters.ts";

export interface SessionSettings {
  /** Requests that may wait for a busy session (com.glide.request.max_waiters). */
  maxWaiters: number;
  /** A session unused this long expires (glide_session_store's Max-Age is 1800). */
  idleSeconds: number;
  /** Sessions kept per node; the oldest idle ones go first beyond it. */
  maxPerNode: number;
}

export interface SemaphoreSettings {
  /** API_INT threads per node. */
  threads: number;
  /** Requests that may wait for a thread, per node; one more gets a bare 429. */
  queue: number;
  /** Threads of each node held by another client's work. */
  otherClientThreads: number;
}

export interface ClusterSettings {
  nodes: number;
  /** The API_INT semaphore of each node; without it every request gets a thread at once. */
  semaphore?: SemaphoreSettings;
  /** Sessions and their lock; without them every request runs at once and no cookie is set. */
  sessions?: SessionSettings;
  /** The transaction quota: ms from the semaphore queue to the end of the answer, and how a list is cut. */
  quota?: { ms: number; shape: QuotaShape };
  /** Name of the balancer's affinity cookie (BIGipServerpool_<instance>). */
  balancerCookie: string;
  /** Mark cookies Secure (the simulator serves HTTPS). */
  secureCookies: boolean;
}

/** A request that may run: what it waited for, the headers to add, and `release` once its answer is sent. */
export interface Ticket {
  node: number;
  /** X-Transaction-ID of the answer. */
  transactionId: string;
  seshWaitMs: number;
  semWaitMs: number;
  /** `performance.now()` when the request started running. */
  startedAt: number;
  /** The transaction quota left to this request, when one is configured. */
  quota?: Quota;
  headers: Array<[string, string]>;
  release(): void;
}

/**
 * A request the instance answers without running it: 202 (its session has too many waiters), 429 (the node's
 * semaphore queue is full: no body, no Retry-After), 500 (the quota ran out while it was queued: the cancelled
 * transaction's error body), 503 (the simulator stops while it waited).
 */
export interface Refusal {
  status: 202 | 429 | 500 | 503;
  headers: Array<[string, string]>;
  body?: string;
}

interface Node {
  index: number;
  route: string;
  balancer: string;
  sessions?: SessionTable;
  semaphore?: Semaphore;
}

export class Cluster {
  readonly settings: ClusterSettings;
  readonly nodes: Node[];
  #byCookie = new Map<string, number>();
  #next = 0;
  #transactions = 0x7a3c_0000_0000;
  #counters: Counters;

  constructor(settings: ClusterSettings, counters: Counters) {
    if (!Number.isInteger(settings.nodes) || settings.nodes < 1) {
      throw new RangeError(`nodes must be a positive integer, got ${settings.nodes}`);
    }
    const s = settings.sessions;
    if (s && (!Number.isInteger(s.maxWaiters) || s.maxWaiters < 0)) {
      throw new RangeError(`sessions.maxWaiters must be a non-negative integer, got ${s.maxWaiters}`);
    }
    this.settings = settings;
    this.#counters = counters;
    this.nodes = Array.from({ length: settings.nodes }, (_, index) => {
      const route = `glide.${(0x5e55_0000 + index).toString(16).padStart(32, "0")}`;
      const balancer = balancerValue(index);
      this.#byCookie.set(route, index).set(balancer, index);
      const sessions = s ? new SessionTable(s.idleSeconds, s.maxPerNode) : undefined;
      const p = settings.semaphore;
      const semaphore = p ? new Semaphore(p.threads, p.queue) : undefined;
      semaphore?.hold(p!.otherClientThreads);
      return { index, route, balancer, sessions, semaphore };
    });
  }

  /** Sessions open now, over all nodes. */
  get openSessions(): number {
    return this.nodes.reduce((n, node) => n + (node.sessions?.size ?? 0), 0);
  }

  /** Another client holds `n` threads of each node from now on. */
  holdThreads(n: number): void {
    for (const node of this.nodes) node.semaphore?.hold(n);
  }

  /** Each node's semaphore now (for /sim/stats). */
  semaphores(): Array<{ running: number; queued: number; held: number }> {
    return this.nodes.flatMap(({ semaphore: s }) =>
      s ? [{ running: s.running, queued: s.queued, held: s.held }] : []
    );
  }

  /** Sends every queued request away: nothing may hang once the simulator stops. */
  close(): void {
    for (const node of this.nodes) node.semaphore?.close();
  }

  /** The node the balancer sends a request to: the one its cookies name, else the next in turn. */
  #route(cookies: Map<string, string>): Node {
    const pinned = this.#byCookie.get(cookies.get(this.settings.balancerCookie) ?? "") ??
      this.#byCookie.get(cookies.get("glide_user_route") ?? "");
    if (pinned !== undefined) return this.nodes[pinned];
    const node = this.nodes[this.#next];
    this.#next = (this.#next + 1) % this.nodes.length;
    return node;
  }

  /** Lets a request in: a Ticket once it may run, or the answer the instance gives without running it. */
  async admit(request: Request, nowMs: number): Promise<Ticket | Refusal> {
    const arrivedAt = performance.now();
    const cookies = parseCookies(request.headers.get("cookie"));
    const node = this.#route(cookies);
    const headers: Array<[string, string]> = [];
    let session: Session | undefined;
    if (node.sessions) {
      session = node.sessions.find(cookies.get("JSESSIONID"), nowMs);
      if (!session) {
        session = node.sessions.open(nowMs);
        this.#counters.sessionsOpened++;
        headers.push(...this.#sessionCookies(node, session));
      }
      const locked = session.lock(this.settings.sessions!.maxWaiters);
      if (locked === "overflow") {
        this.#counters.sessionOverflows++;
        return { status: 202, headers };
      }
      await locked;
    }
    const lockedAt = performance.now();
    const quota = this.settings.quota;
    const entry = node.semaphore?.enter(quota?.ms);
    if (entry === "full") {
      session?.unlock();
      this.#counters.queueFull++;
      return { status: 429, headers: [] };
    }
    const outcome = await entry;
    if (outcome === "timed_out") {
      session?.unlock();
      this.#counters.quotaCancelled++;
      return { status: 500, headers, body: CANCELLED_BODY };
    }
    if (outcome === "closed") {
      session?.unlock();
      return { status: 503, headers };
    }
    const startedAt = performance.now();
    let released = false;
    return {
      node: node.index,
      transactionId: (this.#transactions++).toString(16).padStart(12, "0"),
      seshWaitMs: lockedAt - arrivedAt,
      semWaitMs: startedAt - lockedAt,
      startedAt,
      quota: quota && { deadline: lockedAt + quota.ms, shape: quota.shape },
      headers,
      release: () => {
        if (released) return;
        released = true;
        if (entry) node.semaphore!.leave();
        session?.unlock();
      },
    };
  }

  #sessionCookies(node: Node, session: Session): Array<[string, string]> {
    const secure = this.settings.secureCookies;
    const maxAge = this.settings.sessions!.idleSeconds;
    return [
      ["set-cookie", setCookie("JSESSIONID", session.id, secure)],
      ["set-cookie", setCookie("glide_user_route", node.route, secure)],
      ["set-cookie", setCookie("glide_session_store", session.store, secure, maxAge)],
      ["set-cookie", setCookie(this.settings.balancerCookie, node.balancer, secure)],
    ];
  }
}

/** `Server-Timing` as real responses carry it: `sem_wait;dur=N, sesh_wait;dur=M` (whole milliseconds). */
export function serverTiming(ticket: Pick<Ticket, "semWaitMs" | "seshWaitMs">): string {
  return `sem_wait;dur=${Math.round(ticket.semWaitMs)}, sesh_wait;dur=${Math.round(ticket.seshWaitMs)}`;
}
