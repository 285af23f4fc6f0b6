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
  /**
   * About how many bytes the body will have (e.g. the size of the last page of the same table): the body is read
   * into one buffer of that size, not into one doubled from 16 KiB (for a 10 MB page: 32 MB of buffers, each
   * copied into the next, 24 MB of them at once). A Content-Length (uncompressed) is used instead when present.
   */
  expectedBytes?: number;
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
  const byob = byobReader(response.body);
  if (byob) {
    // One byte more than expected, so that a body of exactly that size ends without growing the buffer.
    const expected = !compressed && declared >= 0 ? declared : limits.expectedBytes ?? 0;
    const first = Math.min(Math.max(FIRST_BUFFER_BYTES, expected + 1), limits.maxBytes + 1);
    return await readIntoBuffer(byob, first, limits, request, compressed);
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await readWithin(() => reader.read(), reader, limits.idleMs);
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

/** The first buffer a body of unknown size is read into; it doubles as needed, up to one byte over the limit. */
const FIRST_BUFFER_BYTES = 16_384;

/** A BYOB reader when the body is a byte stream (fetch's bodies are), else null. */
function byobReader(body: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | null {
  try {
    return body.getReader({ mode: "byob" });
  } catch {
    return null;
  }
}

/**
 * Reads a byte stream into one buffer of ours. A default reader makes the stream allocate a fresh 64 KiB chunk
 * for every read, two per answer even when it is a few bytes long: that garbage was most of the sink's
 * collection work per request.
 */
async function readIntoBuffer(
  reader: ReadableStreamBYOBReader,
  firstBytes: number,
  limits: BodyLimits,
  request: RequestLabel,
  compressed: boolean,
): Promise<Uint8Array> {
  let buffer = new Uint8Array(firstBytes);
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      if (total > limits.maxBytes) {
        abandon(reader);
        throw new ResponseTooLargeError(request, limits.maxBytes, compressed);
      }
      const grown = new Uint8Array(Math.min(buffer.length * 2, limits.maxBytes + 1));
      grown.set(buffer);
      buffer = grown;
    }
    const free = buffer.subarray(total);
    const { value, done } = await readWithin(() => reader.read(free), reader, limits.idleMs);
    // The read takes the buffer over and hands it back (transferred) with what it filled.
    if (value) buffer = new Uint8Array(value.buffer, 0, value.buffer.byteLength);
    if (done) break;
    total += value!.byteLength;
  }
  if (total > limits.maxBytes) {
    abandon(reader);
    throw new ResponseTooLargeError(request, limits.maxBytes, compressed);
  }
  return buffer.subarray(0, total);
}

async function readWithin<T>(
  read: () => Promise<ReadableStreamReadResult<T>>,
  reader: ReadableStreamDefaultReader<Uint8Array> | ReadableStreamBYOBReader,
  idleMs: number,
): Promise<ReadableStreamReadResult<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Reject before cancelling: cancelling settles the pending read as "done", which must not win the race.
      reject(new BodyStalledError(idleMs));
      abandon(reader);
    }, idleMs);
  });
  try {
    return await Promise.race([read(), stalled]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Cancels without awaiting: with msw active a cancel promise never settles, and the connection is dropped
 * either way. The rejection is swallowed so it cannot surface as an unhandled one.
 */
export function abandon(
  stream: ReadableStream<Uint8Array> | ReadableStreamDefaultReader<Uint8Array> | ReadableStreamBYOBReader,
): void {
  stream.cancel().catch(() => {});
}
