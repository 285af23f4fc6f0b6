/**
 * List reads of several tables gathered into one Batch API request (batch_api.ts): reads that arrive within a
 * short gathering window (`gatherMs`) travel together, at most `maxItems` per batch, and each caller gets its own
 * item's response, which the table client parses exactly as a single request's (same validation, same cut-body
 * handling). One batch is one HTTP request: one permit, one round trip, one request against the hourly rule.
 *
 * Only reads expected to be small belong here (an idle table's window query): the items run one after another on
 * the instance within the Batch API's 30 s quota and each answer is capped at 10 MB.
 *
 * An item is never lost nor read as an empty page: an item the instance left unserviced (quota), answered with a
 * retryable status (429, 5xx), with a 202 and an empty body (not done), or missing from the answer is sent again
 * alone, as a single request with the HTTP client's own retries. A read gathered alone goes as a single request.
 *
 * When the batch endpoint itself refuses (any status but 200): with `required` the reads fail with that
 * `InstanceConfigError`; without, the coalescer turns itself off (`onRefused` says why) and every read from then
 * on, and the refused ones, go as single requests. A batch answer over `svc.http.max.response.bytes` sends its
 * reads alone (each may fit; the tables' page sizes are not at fault). Any other failure of the batch request (after the HTTP
 * client's retries) fails each of its reads with that error, as it would have failed a single request.
 */
import { isRetryableStatus } from "../common/retry_policy.ts";
import { postBatch } from "./batch_api.ts";
import { InstanceConfigError, ResponseTooLargeError } from "./errors.ts";
import type { InstanceHttpClient, InstanceResponse } from "./http_client.ts";
import { isNotDone } from "./not_done.ts";
import type { RowWrite } from "./row_write.ts";

export interface ReadCoalescerOptions {
  /** How long the first read of a batch waits for others to join it. */
  gatherMs: number;
  /** Items per batch request. */
  maxItems: number;
  /** true: a refused batch endpoint fails the reads; false: batching turns off and reads go one by one. */
  required: boolean;
  /** The setting named in the error when the batch endpoint refuses. */
  neededBy: string;
  /** Told once when batching turned itself off. */
  onRefused?: (error: InstanceConfigError) => void;
  /** While this answers true, reads go alone (e.g. while a rate-limit rule that counts every item is known). */
  aloneWhile?: () => boolean;
}

/** What a coalesced read did, for tests and metrics: batch requests sent, items they carried, reads sent alone. */
export interface CoalescerStats {
  batches: number;
  items: number;
  alone: number;
}

interface PendingRead {
  read: RowWrite;
  signal?: AbortSignal;
  resolve: (response: InstanceResponse) => void;
  reject: (error: unknown) => void;
}

export class ReadCoalescer {
  readonly #http: InstanceHttpClient;
  readonly #o: ReadCoalescerOptions;
  #pending: PendingRead[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #refused = false;
  readonly stats: CoalescerStats = { batches: 0, items: 0, alone: 0 };

  constructor(http: InstanceHttpClient, options: ReadCoalescerOptions) {
    if (options.maxItems < 1) throw new RangeError(`maxItems must be at least 1, got ${options.maxItems}`);
    this.#http = http;
    this.#o = options;
  }

  /** False once the batch endpoint refused and batching turned itself off. */
  get active(): boolean {
    return !this.#refused;
  }

  /** A GET list read, answered by its own item of a batch (or by a single request). */
  request(read: RowWrite, signal?: AbortSignal): Promise<InstanceResponse> {
    if (read.method !== "GET") throw new RangeError(`only reads are coalesced, not ${read.method}`);
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#refused || this.#o.aloneWhile?.()) return this.#alone(read, signal);
    return new Promise((resolve, reject) => {
      // A caller that gives up is answered at once; its item, if already sent, is simply not used.
      const onAbort = () => reject(signal!.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      const settled = () => signal?.removeEventListener("abort", onAbort);
      this.#pending.push({
        read,
        signal,
        resolve: (response) => (settled(), resolve(response)),
        reject: (error) => (settled(), reject(error)),
      });
      this.#timer ??= setTimeout(() => this.#flush(), this.#o.gatherMs);
    });
  }

  /** Stops the gathering timer; reads still gathering are sent alone. */
  close(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    for (const p of this.#pending.splice(0)) this.#settleAlone(p);
  }

  #flush(): void {
    this.#timer = null;
    const pending = this.#pending.splice(0).filter((p) => !p.signal?.aborted);
    for (let at = 0; at < pending.length; at += this.#o.maxItems) {
      const batch = pending.slice(at, at + this.#o.maxItems);
      if (batch.length === 1 || this.#refused) batch.forEach((p) => this.#settleAlone(p));
      else void this.#send(batch);
    }
  }

  async #send(batch: PendingRead[]): Promise<void> {
    let outcomes;
    const wanted = whileWanted(batch);
    try {
      this.stats.batches++;
      this.stats.items += batch.length;
      outcomes = await postBatch(this.#http, batch.map((p) => p.read), wanted.signal, {
        keepHeaders: true,
        neededBy: this.#o.neededBy,
      });
    } catch (error) {
      wanted.dispose();
      // The reads together outgrew svc.http.max.response.bytes: each may well fit alone (its table's page size
      // is not the cause, so no table should halve it).
      if (error instanceof ResponseTooLargeError) {
        batch.forEach((p) => this.#settleAlone(p));
      } else if (error instanceof InstanceConfigError && !this.#o.required) {
        if (!this.#refused) this.#o.onRefused?.(error);
        this.#refused = true;
        batch.forEach((p) => this.#settleAlone(p));
      } else batch.forEach((p) => p.reject(error));
      return;
    }
    wanted.dispose();
    outcomes.forEach((outcome, i) => {
      const p = batch[i];
      const answered = outcome.kind === "serviced" &&
        !isRetryableStatus(outcome.response.status) &&
        !isNotDone(outcome.response.status, outcome.response.body);
      if (answered) p.resolve(outcome.response);
      else this.#settleAlone(p);
    });
  }

  #settleAlone(p: PendingRead): void {
    this.#alone(p.read, p.signal).then(p.resolve, p.reject);
  }

  #alone(read: RowWrite, signal?: AbortSignal): Promise<InstanceResponse> {
    this.stats.alone++;
    return this.#http.request({ method: "GET", path: read.path, query: read.query, signal });
  }
}

/**
 * A signal that aborts once every read of the batch gave up (the batch is then no longer wanted), and `dispose`
 * to stop listening once the batch is answered (the reads' signals are usually the task's, which lives long).
 */
function whileWanted(batch: readonly PendingRead[]): { signal?: AbortSignal; dispose(): void } {
  const signals = batch.map((p) => p.signal);
  if (signals.some((s) => s === undefined)) return { dispose: () => {} };
  const controller = new AbortController();
  const distinct = [...new Set(signals as AbortSignal[])];
  const onAbort = () => {
    if (distinct.every((s) => s.aborted)) controller.abort(distinct[0].reason);
  };
  for (const s of distinct) s.addEventListener("abort", onAbort);
  return {
    signal: controller.signal,
    dispose: () => distinct.forEach((s) => s.removeEventListener("abort", onAbort)),
  };
}
