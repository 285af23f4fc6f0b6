/**
 * Counters: requests, rows scanned versus returned (how much work a query cost), bytes of bodies sent, and
 * requests in flight, overall and per route, with their maxima (throttler tests assert "never more than N at once"); and what the
 * instance's limits did: sessions opened, requests answered 202 because their session had too many waiters, bare
 * 429s because a node's semaphore queue was full, transactions the quota cancelled.
 */
export class Counters {
  requests = 0;
  sessionsOpened = 0;
  sessionOverflows = 0;
  queueFull = 0;
  quotaCancelled = 0;
  rowsScanned = 0;
  rowsReturned = 0;
  /** Bytes of response bodies sent (uncompressed). */
  bytesReturned = 0;
  inFlight = 0;
  maxInFlight = 0;
  #inFlightByRoute = new Map<string, number>();
  #maxInFlightByRoute = new Map<string, number>();
  #statuses = new Map<number, number>();

  /** Called when a request arrives; returns the function to call exactly once when it is finished. */
  enter(route: string): () => void {
    this.requests++;
    this.inFlight++;
    if (this.inFlight > this.maxInFlight) this.maxInFlight = this.inFlight;
    const now = (this.#inFlightByRoute.get(route) ?? 0) + 1;
    this.#inFlightByRoute.set(route, now);
    if (now > (this.#maxInFlightByRoute.get(route) ?? 0)) this.#maxInFlightByRoute.set(route, now);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.inFlight--;
      this.#inFlightByRoute.set(route, (this.#inFlightByRoute.get(route) ?? 1) - 1);
    };
  }

  recordStatus(status: number): void {
    this.#statuses.set(status, (this.#statuses.get(status) ?? 0) + 1);
  }

  /** In-flight requests per route key right now (routes at zero are omitted). */
  inFlightByRoute(): Record<string, number> {
    return Object.fromEntries([...this.#inFlightByRoute].filter(([, n]) => n > 0));
  }

  maxInFlightByRoute(): Record<string, number> {
    return Object.fromEntries(this.#maxInFlightByRoute);
  }

  /** Responses per HTTP status. */
  statuses(): Record<number, number> {
    return Object.fromEntries(this.#statuses);
  }

  /** Zeroes everything except the current in-flight count (requests still running). */
  reset(): void {
    this.requests = 0;
    this.sessionsOpened = 0;
    this.sessionOverflows = 0;
    this.queueFull = 0;
    this.quotaCancelled = 0;
    this.rowsScanned = 0;
    this.rowsReturned = 0;
    this.bytesReturned = 0;
    this.maxInFlight = this.inFlight;
    this.#maxInFlightByRoute = new Map([...this.#inFlightByRoute].filter(([, n]) => n > 0));
    this.#statuses.clear();
  }
}
