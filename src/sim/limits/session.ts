/**
 * Instance sessions (instance-limits.md §3). A cookie-less request opens a new session; a request carrying a
 * session's JSESSIONID reuses it. The requests of one session run one at a time (the session lock); at most
 * `maxWaiters` (com.glide.request.max_waiters, 10) wait for it, and a request beyond them is not executed at all
 * (the instance answers 202 with an empty body).
 */

/** One session: its id, its lock and the requests waiting for it. */
export class Session {
  readonly id: string;
  readonly store: string;
  lastUsedMs: number;
  #locked = false;
  #waiters: Array<() => void> = [];

  constructor(id: string, store: string, nowMs: number) {
    this.id = id;
    this.store = store;
    this.lastUsedMs = nowMs;
  }

  get busy(): boolean {
    return this.#locked;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  /** Takes the lock: resolves when this request may run, or "overflow" when `maxWaiters` already wait. */
  lock(maxWaiters: number): Promise<void> | "overflow" {
    if (!this.#locked) {
      this.#locked = true;
      return Promise.resolve();
    }
    if (this.#waiters.length >= maxWaiters) return "overflow";
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Hands the lock to the next waiter (first come, first served) or frees it. */
  unlock(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#locked = false;
  }
}

function hex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
}

/** The sessions of one node. Idle sessions expire; beyond `capacity` the oldest idle ones are dropped. */
export class SessionTable {
  #sessions = new Map<string, Session>();
  readonly idleMs: number;
  readonly capacity: number;

  constructor(idleSeconds: number, capacity: number) {
    this.idleMs = idleSeconds * 1000;
    this.capacity = capacity;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The live session with this JSESSIONID, if any. */
  find(id: string | undefined, nowMs: number): Session | undefined {
    if (id === undefined) return undefined;
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    if (!session.busy && nowMs - session.lastUsedMs > this.idleMs) {
      this.#sessions.delete(id);
      return undefined;
    }
    session.lastUsedMs = nowMs;
    return session;
  }

  open(nowMs: number): Session {
    const session = new Session(hex(16).toUpperCase(), hex(16), nowMs);
    this.#sessions.set(session.id, session);
    if (this.#sessions.size > this.capacity) this.#evict();
    return session;
  }

  /** Drops the oldest idle sessions until the table fits (Map order is opening order). */
  #evict(): void {
    for (const [id, s] of this.#sessions) {
      if (this.#sessions.size <= this.capacity) return;
      if (!s.busy) this.#sessions.delete(id);
    }
  }
}
