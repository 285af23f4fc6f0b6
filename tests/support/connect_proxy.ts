/**
 * A small forward proxy for tests: HTTP CONNECT tunnels (https targets) and absolute-URI requests (http
 * targets), with optional Basic proxy authentication, counting what it sees.
 *
 * After the first request head of a connection the bytes are piped unchanged, so further keep-alive requests
 * on an absolute-URI connection reach the target in absolute form (HTTP/1.1 servers must accept that).
 */

export interface ConnectProxyOptions {
  /** Require `Proxy-Authorization: Basic` with these credentials. */
  username?: string;
  password?: string;
}

export interface ConnectProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** TCP connections accepted (including ones that sent nothing, like a connect check). */
  readonly connections: number;
  /** CONNECT tunnels opened. */
  readonly tunnels: number;
  /** Absolute-URI requests forwarded (first request of each connection). */
  readonly forwarded: number;
  /** Requests refused with 407. */
  readonly refused: number;
  /** Targets requested (`host:port`), in order. */
  readonly targets: readonly string[];
  close(): Promise<void>;
}

const HEAD_END = new TextEncoder().encode("\r\n\r\n");
const MAX_HEAD = 64 * 1024;

export function startConnectProxy(options: ConnectProxyOptions = {}): ConnectProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const open = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  const expected = options.username === undefined
    ? null
    : `Basic ${btoa(`${options.username}:${options.password ?? ""}`)}`;
  const stats = { connections: 0, tunnels: 0, forwarded: 0, refused: 0, targets: [] as string[] };

  const track = (conn: Deno.Conn) => {
    open.add(conn);
    return () => {
      open.delete(conn);
      try {
        conn.close();
      } catch {
        // already closed
      }
    };
  };

  const handle = async (client: Deno.Conn) => {
    const closeClient = track(client);
    let closeUpstream = () => {};
    try {
      const head = await readHead(client);
      if (!head) return;
      const text = new TextDecoder().decode(head.head);
      const [requestLine, ...headerLines] = text.split("\r\n");
      const [method, target] = requestLine.split(" ");
      const auth = headerLines.find((l) => /^proxy-authorization:/i.test(l))?.replace(/^[^:]+:\s*/, "") ??
        null;
      if (expected !== null && auth !== expected) {
        stats.refused++;
        await writeAll(
          client,
          'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n' +
            "Content-Length: 0\r\nConnection: close\r\n\r\n",
        );
        return;
      }
      let upstream: Deno.Conn;
      if (method === "CONNECT") {
        const [hostname, portText] = splitHostPort(target);
        stats.targets.push(target);
        upstream = await Deno.connect({ hostname, port: Number(portText) });
        closeUpstream = track(upstream);
        stats.tunnels++;
        await writeAll(client, "HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.rest.length) await writeAll(upstream, head.rest);
      } else {
        const url = new URL(target);
        stats.targets.push(url.host);
        upstream = await Deno.connect({ hostname: url.hostname, port: Number(url.port || 80) });
        closeUpstream = track(upstream);
        stats.forwarded++;
        const rewritten = [
          `${method} ${url.pathname}${url.search} ${requestLine.split(" ")[2]}`,
          ...headerLines.filter((l) => !/^proxy-authorization:/i.test(l)),
        ].join("\r\n") + "\r\n\r\n";
        await writeAll(upstream, rewritten);
        if (head.rest.length) await writeAll(upstream, head.rest);
      }
      await Promise.allSettled([pipe(client, upstream), pipe(upstream, client)]);
    } catch {
      // a test proxy: any failure just closes both sides
    } finally {
      closeUpstream();
      closeClient();
    }
  };

  const accepting = (async () => {
    for await (const conn of listener) {
      stats.connections++;
      const task = handle(conn);
      tasks.add(task);
      task.finally(() => tasks.delete(task));
    }
  })().catch(() => {});

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get connections() {
      return stats.connections;
    },
    get tunnels() {
      return stats.tunnels;
    },
    get forwarded() {
      return stats.forwarded;
    },
    get refused() {
      return stats.refused;
    },
    get targets() {
      return stats.targets;
    },
    async close() {
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
      await accepting;
      await Promise.allSettled([...tasks]);
    },
  };
}

/** Reads up to the end of the request head; the bytes after it are returned as `rest`. */
async function readHead(conn: Deno.Conn): Promise<{ head: Uint8Array; rest: Uint8Array } | null> {
  let buffer = new Uint8Array(0);
  const chunk = new Uint8Array(16 * 1024);
  while (buffer.length < MAX_HEAD) {
    const n = await conn.read(chunk);
    if (n === null) return null;
    const next = new Uint8Array(buffer.length + n);
    next.set(buffer);
    next.set(chunk.subarray(0, n), buffer.length);
    buffer = next;
    const end = indexOf(buffer, HEAD_END);
    if (end >= 0) return { head: buffer.subarray(0, end), rest: buffer.subarray(end + 4) };
  }
  return null;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function splitHostPort(target: string): [string, string] {
  const at = target.lastIndexOf(":");
  return [target.slice(0, at).replace(/^\[|\]$/g, ""), target.slice(at + 1)];
}

async function writeAll(conn: Deno.Conn, data: string | Uint8Array): Promise<void> {
  let bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  while (bytes.length > 0) bytes = bytes.subarray(await conn.write(bytes));
}

async function pipe(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const chunk = new Uint8Array(32 * 1024);
  try {
    for (;;) {
      const n = await from.read(chunk);
      if (n === null) break;
      await writeAll(to, chunk.subarray(0, n));
    }
  } finally {
    try {
      await to.closeWrite();
    } catch {
      // already closed
    }
  }
}
