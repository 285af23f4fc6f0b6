/** The journal of every request the simulator served, for tests that assert what a client sent. */

export interface JournalEntry {
  /** 1-based order of arrival. */
  seq: number;
  method: string;
  /** Path as requested (including an API version). */
  path: string;
  /** Route key, the name faults and in-flight counters use: "GET /api/now/table/incident/{sys_id}". */
  route: string;
  table?: string;
  /** The raw query string without "?", exactly as sent. */
  queryString: string;
  /** Parsed query parameters (last value wins for repeated names). */
  params: Record<string, string>;
  /** HTTP status answered (0 until the response is sent). */
  status: number;
  /** User name (basic auth or the token's user), never a secret; undefined when unauthenticated. */
  principal?: string;
  authKind: "basic" | "bearer" | "none";
  /** OAuth client id for bearer requests and token requests. */
  clientId?: string;
  /** Host wall-clock epoch ms when the request arrived. */
  startedAt: number;
  /** Host wall-clock epoch ms when the body finished (or failed); undefined while in flight. */
  endedAt?: number;
  /** Instance clock at arrival, `yyyy-MM-dd HH:mm:ss`. */
  instanceTime: string;
  rowsScanned: number;
  rowsReturned: number;
  /** Fault kinds applied to this request. */
  faults: string[];
  /** An item of a Batch API request (served inside another entry's round trip), not an HTTP request of its own. */
  batchItem?: boolean;
}

export class Journal {
  #entries: JournalEntry[] = [];
  #seq = 0;
  #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Starts an entry; the server fills status and end time later. */
  open(
    entry: Omit<JournalEntry, "seq" | "status" | "rowsScanned" | "rowsReturned" | "faults">,
  ): JournalEntry {
    const full: JournalEntry = {
      seq: ++this.#seq,
      status: 0,
      rowsScanned: 0,
      rowsReturned: 0,
      faults: [],
      ...entry,
    };
    this.#entries.push(full);
    if (this.#entries.length > this.#limit) this.#entries.splice(0, this.#entries.length - this.#limit);
    return full;
  }

  entries(): readonly JournalEntry[] {
    return this.#entries;
  }

  /** Entries matching a predicate, or a route key / table name shorthand. */
  find(
    filter: ((e: JournalEntry) => boolean) | { route?: string; table?: string; method?: string },
  ): JournalEntry[] {
    const pred = typeof filter === "function"
      ? filter
      : (e: JournalEntry) =>
        (!filter.route || e.route === filter.route) && (!filter.table || e.table === filter.table) &&
        (!filter.method || e.method === filter.method);
    return this.#entries.filter(pred);
  }

  last(): JournalEntry | undefined {
    return this.#entries[this.#entries.length - 1];
  }

  clear(): void {
    this.#entries = [];
  }
}
