/**
 * Reading a REST request's JSON body within `rest.request.max.bytes`: a Content-Length above the limit is refused
 * (413) before a byte is read, and a body sent without one (chunked) is read as a stream that stops, and is
 * cancelled, once it passes the limit, so no more than the limit is ever held. A body must be JSON:
 * `Content-Type: application/json` (a `charset` parameter, if any, must be utf-8), else 415. An endpoint that
 * takes no body (pause, resume, stop, restart, delete) never reads one, whatever its type.
 */
import { ConnectRestError } from "../runtime/herder/connect_rest_error.ts";

/** `rest.request.max.bytes`'s default. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The limit of each request being served, set by the server (a request not from it gets the default). */
const limits = new WeakMap<Request, number>();

export function limitBody(request: Request, maxBytes: number): void {
  limits.set(request, maxBytes);
}

/** 413 for a declared length above the limit; the server checks it before routing. */
export function checkDeclaredLength(request: Request, maxBytes: number): void {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) {
    throw tooLarge(maxBytes, `Content-Length ${declared}`);
  }
}

/** Reads a JSON body; a missing, empty, non-JSON, oversized or malformed one is a 4xx naming the problem. */
export async function readJson(request: Request): Promise<unknown> {
  if (request.body === null) throw emptyBody();
  checkContentType(request.headers.get("content-type"));
  const text = await readLimited(request.body, limits.get(request) ?? DEFAULT_MAX_BODY_BYTES);
  if (text.trim() === "") throw emptyBody();
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ConnectRestError(400, `Request body is not valid JSON: ${(e as Error).message}`);
  }
}

function checkContentType(header: string | null): void {
  const [type, ...params] = (header ?? "").split(";").map((p) => p.trim().toLowerCase());
  const charset = params.find((p) => p.startsWith("charset="))?.slice("charset=".length).replace(/"/g, "");
  if (type === "application/json" && (charset === undefined || charset === "utf-8" || charset === "utf8")) {
    return;
  }
  throw new ConnectRestError(
    415,
    `Unsupported Content-Type ${header === null ? "(none)" : JSON.stringify(header)}: ` +
      "the request body must be JSON sent as Content-Type: application/json (charset utf-8, if one is given)",
  );
}

async function readLimited(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(maxBytes, "the body");
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ConnectRestError(400, "Request body is not valid UTF-8");
  }
}

function tooLarge(maxBytes: number, what: string): ConnectRestError {
  return new ConnectRestError(
    413,
    `Request body too large: ${what} exceeds rest.request.max.bytes (${maxBytes} bytes)`,
  );
}

function emptyBody(): ConnectRestError {
  return new ConnectRestError(400, "Request body is empty; a JSON body is required");
}
