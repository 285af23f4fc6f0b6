/**
 * A reverse proxy in front of the simulator that records every request's method, path, query and JSON body,
 * because the simulator's journal keeps no bodies. Responses (resets included: a body stream that fails
 * upstream fails downstream too) pass through unchanged.
 */

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  /** The parsed JSON body, or null when there was none. */
  body: Record<string, unknown> | null;
}

export interface RecordingProxy {
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** Requests that write rows (POST, PATCH, PUT, DELETE), in arrival order. */
  writes(): RecordedRequest[];
  /** The most write requests in flight at one moment (from arrival until the response body passed through). */
  readonly peakConcurrentWrites: number;
  /** The most write requests to one path (one row) in flight at one moment. */
  readonly peakConcurrentWritesPerRow: number;
  clear(): void;
  close(): Promise<void>;
}

export function startRecordingProxy(target: string): RecordingProxy {
  const requests: RecordedRequest[] = [];
  let writesInFlight = 0;
  let peakConcurrentWrites = 0;
  const inFlightByPath = new Map<string, number>();
  let peakConcurrentWritesPerRow = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const url = new URL(request.url);
    const text = await request.text();
    requests.push({
      method: request.method,
      path: url.pathname,
      query: url.searchParams,
      body: text === "" ? null : JSON.parse(text),
    });
    const isWrite = request.method !== "GET";
    if (isWrite) {
      peakConcurrentWrites = Math.max(peakConcurrentWrites, ++writesInFlight);
      const onPath = (inFlightByPath.get(url.pathname) ?? 0) + 1;
      inFlightByPath.set(url.pathname, onPath);
      peakConcurrentWritesPerRow = Math.max(peakConcurrentWritesPerRow, onPath);
    }
    const done = () => {
      if (!isWrite) return;
      writesInFlight--;
      inFlightByPath.set(url.pathname, inFlightByPath.get(url.pathname)! - 1);
    };
    const headers = new Headers(request.headers);
    headers.delete("host");
    let upstream: Response;
    try {
      upstream = await fetch(`${target}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: text === "" ? undefined : text,
      });
    } catch (error) {
      done();
      throw error;
    }
    if (!upstream.body) {
      done();
      return new Response(null, { status: upstream.status, headers: upstream.headers });
    }
    // Streamed, so a reset upstream (a body that fails midway) fails the client's connection the same way;
    // "in flight" lasts until the body has passed through.
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    upstream.body.pipeTo(writable).catch(() => {}).finally(done);
    return new Response(readable, { status: upstream.status, headers: upstream.headers });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    writes: () => requests.filter((r) => r.method !== "GET"),
    get peakConcurrentWrites() {
      return peakConcurrentWrites;
    },
    get peakConcurrentWritesPerRow() {
      return peakConcurrentWritesPerRow;
    },
    clear: () => {
      requests.length = 0;
    },
    close: () => server.shutdown(),
  };
}
