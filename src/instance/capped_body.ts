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
  // A small body of a declared length (a row write's answer, most answers) is read in one go: reading it chunk
  // by chunk through a stream reader, with a timer per chunk, was a fifth of the sink's CPU per request. The
  // declared length bounds it (not when compressed: decompressed it may be far larger), and the idle time
  // bounds the whole read.
  if (!compressed && declared <= Math.min(limits.maxBytes, SMALL_BODY_BYTES)) {
    return await readWhole(response, limits.idleMs);
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

/** Bodies up to this size, declared by Content-Length, are read in one go. */
const SMALL_BODY_BYTES = 65_536;

async function readWhole(response: Response, idleMs: number): Promise<Uint8Array> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const whole = response.bytes();
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BodyStalledError(idleMs)), idleMs);
  });
  try {
    return await Promise.race([whole, stalled]);
  } catch (error) {
    // The read goes on (or fails) after a stall; its outcome no longer matters to anyone.
    whole.catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
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
