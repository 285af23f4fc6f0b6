/**
 * The Batch API, `POST /api/now/v1/batch` (table-api.md §9): `rest_requests` items (`id`, `method`, `url`,
 * optional `headers` and base64 `body`) are served one after the other, each as its own request under the
 * batch's credentials (access control, faults and the journal apply per item). Each answer goes into
 * `serviced_requests` (base64 body, status, headers unless `exclude_response_headers`); items not started
 * before the transaction quota (`batchQuotaMs`, 30 s by default) come back in `unserviced_requests`.
 */
import { errorBody } from "../http/responses.ts";
import type { SimState } from "../state.ts";
import { type ApiResponse, bodyOf } from "./request.ts";

interface BatchItem {
  id: string;
  method: string;
  url: string;
  headers?: { name: string; value: string }[];
  body?: string;
  exclude_response_headers?: boolean;
}

function badRequest(headers: Headers, detail: string): ApiResponse {
  return { status: 400, headers, body: bodyOf(errorBody("Invalid batch request", detail)) };
}

/** The items of a batch body, or why it is not one. */
function readItems(parsed: unknown): BatchItem[] | string {
  const requests = (parsed as { rest_requests?: unknown })?.rest_requests;
  if (!Array.isArray(requests)) return "rest_requests must be an array";
  for (const [i, item] of requests.entries()) {
    const { id, method, url } = (item ?? {}) as Partial<BatchItem>;
    if (typeof id !== "string" || typeof method !== "string" || typeof url !== "string") {
      return `rest_requests[${i}] needs string id, method and url`;
    }
  }
  return requests as BatchItem[];
}

export async function serveBatch(
  state: SimState,
  request: Request,
  headers: Headers,
  serve: (item: Request) => Promise<Response>,
): Promise<ApiResponse> {
  let parsed: { batch_request_id?: unknown };
  try {
    parsed = JSON.parse(await request.text());
  } catch {
    return badRequest(headers, "the body is not JSON");
  }
  const items = readItems(parsed);
  if (typeof items === "string") return badRequest(headers, items);
  const started = Date.now();
  const base = new URL(request.url);
  const serviced: unknown[] = [];
  const unserviced: string[] = [];
  for (const item of items) {
    if (Date.now() - started >= state.settings.batchQuotaMs) {
      unserviced.push(item.id);
      continue;
    }
    const itemHeaders = new Headers();
    for (const h of item.headers ?? []) itemHeaders.append(h.name, h.value);
    const auth = request.headers.get("authorization");
    if (auth) itemHeaders.set("authorization", auth);
    const body = item.body ? Uint8Array.from(atob(item.body), (c) => c.charCodeAt(0)) : undefined;
    const itemStarted = Date.now();
    const response = await serve(
      new Request(new URL(item.url, base), { method: item.method.toUpperCase(), headers: itemHeaders, body }),
    );
    const bytes = new Uint8Array(await response.arrayBuffer());
    serviced.push({
      id: item.id,
      body: toBase64(bytes),
      status_code: response.status,
      status_text: response.statusText,
      headers: item.exclude_response_headers
        ? []
        : [...response.headers].map(([name, value]) => ({ name, value })),
      execution_time: Date.now() - itemStarted,
    });
  }
  headers.set("content-type", "application/json;charset=UTF-8");
  return {
    status: 200,
    headers,
    body: bodyOf(JSON.stringify({
      batch_request_id: parsed.batch_request_id ?? null,
      serviced_requests: serviced,
      unserviced_requests: unserviced,
    })),
  };
}

function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}
