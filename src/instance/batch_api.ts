/**
 * One round trip of the instance's Batch API (`POST /api/now/v1/batch`, table-api.md §9): row writes (the sink)
 * or list reads (the source's read coalescer) go out as `rest_requests` items (JSON bodies base64-encoded), and
 * each item's answer comes back as an `InstanceResponse` of its own, so the single-call interpretation
 * (`rowWriteResult`, `deleteResult`, `expectResult`) applies unchanged. Items the instance did not get to before
 * its 30 s quota are reported as unserviced: they were not applied (not run).
 *
 * An item's own headers (`X-Total-Count` of a read) come back in the item when asked for (`keepHeaders`); its
 * `date` is the batch response's Date header: the instance clock when the batch was answered.
 *
 * The batch request itself goes through the HTTP client (permits, retries of 429/5xx answers, auth). It is
 * idempotent only when every item is (no POST): a batch with a create that is sent without an answer throws
 * `AmbiguousRequestError`, since some of its items may have been applied.
 */
import type { InstanceHttpClient, InstanceResponse } from "./http_client.ts";
import { InstanceConfigError, InstanceRetriableError } from "./errors.ts";
import { refuseHtmlPage } from "./html_page.ts";
import { redact } from "../observability/redact.ts";
import type { RowWrite } from "./row_write.ts";

const BATCH_PATH = "/api/now/v1/batch";

export type BatchItemOutcome =
  | { kind: "serviced"; response: InstanceResponse }
  /** The instance did not get to it (quota): not applied. */
  | { kind: "unserviced" }
  /** Missing from the answer altogether: it may or may not have been applied. */
  | { kind: "unknown" };

interface ServicedItem {
  id: string;
  body?: string;
  status_code: number;
  headers?: { name: string; value: string }[];
}

const encoder = new TextEncoder();

export interface BatchOptions {
  /** Ask for each item's response headers (reads need `X-Total-Count`); writes go without. */
  keepHeaders?: boolean;
  /** The setting that makes the Batch API needed, named when the endpoint refuses. */
  neededBy?: string;
}

export async function postBatch(
  http: InstanceHttpClient,
  writes: readonly RowWrite[],
  signal?: AbortSignal,
  { keepHeaders = false, neededBy = "svc.sink.batch.enabled=true" }: BatchOptions = {},
): Promise<BatchItemOutcome[]> {
  const restRequests = writes.map((w, i) => {
    const query = w.query.toString();
    return {
      id: String(i),
      method: w.method,
      url: `${w.path}${query ? `?${query}` : ""}`,
      headers: [
        { name: "Content-Type", value: "application/json" },
        { name: "Accept", value: "application/json" },
      ],
      ...(w.json === undefined ? {} : { body: toBase64(encoder.encode(JSON.stringify(w.json))) }),
      exclude_response_headers: !keepHeaders,
    };
  });
  const response = await http.request({
    method: "POST",
    path: BATCH_PATH,
    json: { batch_request_id: crypto.randomUUID(), rest_requests: restRequests },
    idempotent: writes.every((w) => w.method !== "POST"),
    // Each item runs as a request the rule counts, and the batch request is one more (a rule over every API,
    // as the simulator's, counts it too; one over the Table API only does not: counting it errs safe).
    rateLimitCost: restRequests.length + 1,
    signal,
  });
  const text = new TextDecoder().decode(response.body);
  const label = { method: "POST", path: BATCH_PATH };
  if (response.status !== 200) {
    // The batch endpoint refused the request as a whole (not enabled, not permitted): a setup problem, not
    // something about any one record.
    throw new InstanceConfigError(
      `${BATCH_PATH} answered HTTP ${response.status}; the Batch API is needed by ${neededBy}: ` +
        redact(text).slice(0, 300),
    );
  }
  refuseHtmlPage(response, label);
  let parsed: { serviced_requests?: ServicedItem[]; unserviced_requests?: string[] };
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InstanceRetriableError(label, response.status, response.attempts, "batch answer is not JSON");
  }
  const outcomes: (BatchItemOutcome | undefined)[] = new Array(writes.length);
  for (const item of parsed.serviced_requests ?? []) {
    const at = Number(item.id);
    if (!Number.isInteger(at) || at < 0 || at >= writes.length) continue;
    outcomes[at] = {
      kind: "serviced",
      response: {
        status: item.status_code,
        headers: new Headers((item.headers ?? []).map((h) => [h.name, h.value])),
        body: item.body ? fromBase64(item.body) : new Uint8Array(0),
        attempts: response.attempts,
        date: response.date,
      },
    };
  }
  // Not applied only when the instance says so; an item missing from the answer may have been applied.
  const unserviced = new Set(parsed.unserviced_requests ?? []);
  return Array.from(outcomes, (o, i) => o ?? { kind: unserviced.has(String(i)) ? "unserviced" : "unknown" });
}

function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
