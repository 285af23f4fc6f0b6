/** A handler's answer as an HTTP response, its body streamed with the reset, gzip and padding faults. */
import type { ActiveFaults } from "../faults.ts";
import type { ApiResponse } from "../http/answer.ts";
import { JSON_TYPE } from "../http/responses.ts";

/** The error that makes the server drop a connection mid-body (a deliberate fault, not a failure). */
export class SimulatedResetError extends Error {
  constructor() {
    super("simulated connection reset");
  }
}

const encoder = new TextEncoder();

/** Builds the HTTP response; the finish callback runs when the body is done, failed or cancelled. */
export function toResponse(
  res: ApiResponse,
  faults: ActiveFaults,
  head: boolean,
  finish: (status: number) => void,
  /** Told the bytes of each body chunk sent (before any gzip), for the counters. */
  sentBytes: (n: number) => void = () => {},
): Response {
  if (!res.body || head || res.status === 204 || res.status === 202) {
    finish(res.status);
    return new Response(null, { status: res.status, headers: res.headers });
  }
  const source = res.body;
  const iterator = Symbol.asyncIterator in source
    ? (source as AsyncIterable<string>)[Symbol.asyncIterator]()
    : (source as Iterable<string>)[Symbol.iterator]();
  let sent = 0;
  let padded = false;
  const resetAt = faults.resetAfterBytes;
  let stream: ReadableStream<Uint8Array> = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) {
          if (faults.oversizedBytes && !padded && sent < faults.oversizedBytes) {
            // Trailing whitespace keeps the JSON valid while making the body as large as asked.
            padded = true;
            controller.enqueue(encoder.encode(" ".repeat(faults.oversizedBytes - sent)));
            return;
          }
          controller.close();
          finish(res.status);
          return;
        }
        let bytes = encoder.encode(next.value);
        if (resetAt !== undefined && sent + bytes.length >= resetAt) {
          bytes = bytes.subarray(0, Math.max(0, resetAt - sent));
          if (bytes.length) controller.enqueue(bytes);
          finish(res.status);
          // Erroring the stream makes the server drop the connection mid-body: the client sees a reset.
          controller.error(new SimulatedResetError());
          return;
        }
        sent += bytes.length;
        sentBytes(bytes.length);
        controller.enqueue(bytes);
      } catch (e) {
        finish(res.status);
        controller.error(e);
      }
    },
    cancel() {
      finish(res.status);
    },
  });
  if (faults.gzip) {
    stream = stream.pipeThrough(
      new CompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>,
    );
    res.headers.set("content-encoding", "gzip");
  }
  if (!res.headers.has("content-type")) res.headers.set("content-type", JSON_TYPE);
  return new Response(stream, { status: res.status, headers: res.headers });
}
