/**
 * Row writes with the single calls' contract (`create`, `update`, `delete` answer exactly as TableClient's do)
 * sent many per round trip through the Batch API (batch_api.ts). Writes made while a batch is being formed join
 * it (up to `maxRecords`); at most `maxConcurrentBatches` batches are in flight, and further writes wait and
 * fill the next one, so a slow instance gets fuller batches rather than more requests.
 *
 * Each write is settled on its own item's answer:
 *  - answered: the answer is the write's result (a 4xx is the same error the single call would raise);
 *  - unserviced (the instance's quota ran out), answered with a retryable status (429, 503 …) or with a 202 and
 *    an empty body (not done, not_done.ts): not applied, so it is sent again in a later batch, up to `maxSubmits` times, then fails as retriable;
 *  - unknown (the batch was sent and no answer came back, or the item is missing from the answer): a create
 *    fails with `AmbiguousRequestError`, exactly as an unanswered single POST does, so the caller's
 *    ambiguous-create policy decides and nothing is created twice behind its back; an update or delete is
 *    idempotent and is sent again.
 * The order of two writes to one row is the caller's to keep (the sink's KeyScheduler never has two in flight).
 */
import { AmbiguousRequestError, InstanceRetriableError } from "./errors.ts";
import type { InstanceHttpClient, InstanceResponse } from "./http_client.ts";
import { isRetryableStatus } from "../common/retry_policy.ts";
import { postBatch } from "./batch_api.ts";
import { isNotDone, NOT_DONE_REASON } from "./not_done.ts";
import { type RowWriteCalls, rowWriteCalls } from "./table_client.ts";
import type { RowWrite } from "./row_write.ts";

export interface BatchWriterOptions {
  /** Items per batch request. */
  maxRecords: number;
  /** Batch requests in flight at once (each also takes one of the instance's permits). */
  maxConcurrentBatches: number;
  /** Sends of one write before an unserviced or throttled write fails as retriable. Default 5. */
  maxSubmits?: number;
}

interface Queued {
  write: RowWrite;
  signal?: AbortSignal;
  submits: number;
  resolve: (response: InstanceResponse) => void;
  reject: (error: unknown) => void;
}

export class BatchWriter {
  readonly #http: InstanceHttpClient;
  readonly #o: Required<BatchWriterOptions>;
  #queue: Queued[] = [];
  #inFlight = 0;
  #scheduled = false;

  /** Row writes with TableClient's contract, carried by batches. */
  readonly create: RowWriteCalls["create"];
  readonly update: RowWriteCalls["update"];
  readonly delete: RowWriteCalls["delete"];

  constructor(http: InstanceHttpClient, options: BatchWriterOptions) {
    this.#http = http;
    this.#o = { maxSubmits: 5, ...options };
    ({ create: this.create, update: this.update, delete: this.delete } = rowWriteCalls((write, signal) =>
      this.#enqueue(write, signal)
    ));
  }

  #enqueue(write: RowWrite, signal?: AbortSignal): Promise<InstanceResponse> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      this.#queue.push({ write, signal, submits: 0, resolve, reject });
      this.#schedule();
    });
  }

  /** Forms batches on the next turn of the event loop, so that writes started together travel together. */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setTimeout(() => {
      this.#scheduled = false;
      this.#pump();
    }, 0);
  }

  #pump(): void {
    while (this.#inFlight < this.#o.maxConcurrentBatches && this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#o.maxRecords).filter((q) => {
        if (!q.signal?.aborted) return true;
        q.reject(q.signal.reason);
        return false;
      });
      if (batch.length === 0) continue;
      this.#inFlight++;
      void this.#send(batch).finally(() => {
        this.#inFlight--;
        if (this.#queue.length > 0) this.#schedule();
      });
    }
  }

  async #send(batch: Queued[]): Promise<void> {
    let outcomes;
    try {
      for (const q of batch) q.submits++;
      outcomes = await postBatch(this.#http, batch.map((q) => q.write), batch[0].signal);
    } catch (error) {
      if (!(error instanceof AmbiguousRequestError)) {
        for (const q of batch) q.reject(error);
        return;
      }
      for (const q of batch) {
        this.#unknown(q, `it went in a Batch API request that got no answer (${error.message})`);
      }
      return;
    }
    outcomes.forEach((outcome, i) => {
      const q = batch[i];
      if (outcome.kind === "unknown") this.#unknown(q, "the item is missing from the batch answer");
      else if (outcome.kind === "unserviced") this.#again(q, "the instance left it unserviced (batch quota)");
      else if (isRetryableStatus(outcome.response.status)) {
        this.#again(q, `the item was answered with HTTP ${outcome.response.status}`);
      } else if (isNotDone(outcome.response.status, outcome.response.body)) {
        this.#again(q, `the item was answered HTTP 202 ${NOT_DONE_REASON}`);
      } else q.resolve(outcome.response);
    });
  }

  /** Not applied: send again in a later batch, or give up as retriable. */
  #again(q: Queued, reason: string): void {
    if (q.submits >= this.#o.maxSubmits) {
      q.reject(new InstanceRetriableError(q.write, null, q.submits, `${reason}, ${q.submits} times`));
      return;
    }
    this.#queue.unshift(q);
  }

  /** Maybe applied: a create is ambiguous (the caller's policy decides); an idempotent write is sent again. */
  #unknown(q: Queued, reason: string): void {
    if (q.write.method === "POST") q.reject(new AmbiguousRequestError(q.write, q.submits, reason));
    else this.#again(q, reason);
  }
}
