/**
 * Reads a response body while counting its bytes after decompression (fetch decompresses gzip and br
 * transparently), so a body over the limit — a gzip bomb included — fails as soon as the limit is passed,
 * without ever holding more than the limit in memory.
 */
import { type RequestLabel, ResponseTooLargeError } from "./errors.ts";

/** The body stalled: no bytes for `idleMs` (the connection may be half dead). */
export class BodyStalledError extends Error {
  constructor(readonly idleMs: number) {
    super(`response body stalled: no data for ${idleMs} ms`);
    this.name = "BodyStalledError";
  }
}

export interface BodyLimits {
  maxBytes: number;
  /** Longest wait for the next chunk. */
  idleMs: number;
}

export async function readCappedBody(
  response: Response,
  limits: BodyLimits,
  request: RequestLabel,
): Promise<Uint8Array> {
  const compressed = (response.headers.get("content-encoding") ?? "identity") !== "identity";
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (!response.body) return new Uint8Array(0);
  if (!compressed && declared > limits.maxBytes) {
    abandon(response.body);
    throw new ResponseTooLargeError(request, limits.maxBytes, false);
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await readWithin(reader, limits.idleMs);
    if (done) break;
    total += value.byteLength;
    if (total > limits.maxBytes) {
      abandon(reader);
      throw new ResponseTooLargeError(request, limits.maxBytes, compressed);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  idleMs: number,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Reject before cancelling: cancelling settles the pending read as "done", which must not win the race.
      reject(new BodyStalledError(idleMs));
      abandon(reader);
    }, idleMs);
  });
  try {
    return await Promise.race([reader.read(), stalled]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Cancels without awaiting: with msw active a cancel promise never settles, and the connection is dropped
 * either way. The rejection is swallowed so it cannot surface as an unhandled one.
 */
export function abandon(stream: ReadableStream<Uint8Array> | ReadableStreamDefaultReader<Uint8Array>): void {
  stream.cancel().catch(() => {});
}
