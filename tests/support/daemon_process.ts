/**
 * Runs the real daemon (`deno run -A --v8-flags=… main.ts run --config FILE`) as a child process for integration tests:
 * writes the config into a temp dir, waits until the REST API answers, collects every output line (so tests
 * can search them for secrets), and stops it with a signal or kill -9.
 */
import { DAEMON_V8_FLAGS } from "../../src/daemon/v8_flags.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
/** The V8 flags the executable embeds (src/daemon/v8_flags.ts): tests run the daemon as it ships. */
const V8_FLAGS = `--v8-flags=${DAEMON_V8_FLAGS.join(",")}`;

export interface DaemonConfig {
  worker: Record<string, string | number | boolean>;
  connectors: { name: string; config: Record<string, string | number | boolean> }[];
}

export interface DaemonProcess {
  /** The REST API base URL, e.g. http://127.0.0.1:41234. */
  url: string;
  dir: string;
  configPath: string;
  process: Deno.ChildProcess;
  /** Every line the daemon wrote to stdout and stderr so far. */
  output(): string;
  /** Sends a signal and waits for exit; returns the exit code and how long it took. */
  stop(signal?: Deno.Signal): Promise<{ code: number; ms: number }>;
  /** GET/POST/PUT... against the REST API, returning status and parsed JSON (or text). */
  request(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

/** A connector's status as `GET /connectors/<name>/status` answers it (Connect's shape). */
export interface ConnectorStatus {
  name: string;
  connector: { state: string; worker_id: string; trace?: string };
  tasks: { id: number; state: string; worker_id: string; trace?: string; warnings?: string[] }[];
}

/** The connector's status, or null while the daemon does not answer 200 for it (unknown, or not reachable). */
export async function connectorStatus(daemon: DaemonProcess, name: string): Promise<ConnectorStatus | null> {
  const res = await daemon.request("GET", `/connectors/${name}/status`).catch(() => null);
  return res?.status === 200 ? res.body : null;
}

/** Longer than any REST call of the daemon should take (Connect's own REST timeout is 90 s). */
const REQUEST_TIMEOUT_MS = 120_000;

export interface StartDaemonOptions {
  env?: Record<string, string>;
  /** Reuse a directory (restarts keep offsets and REST state there). */
  dir?: string;
  /** Milliseconds to wait for the REST API and every connector of the file. Default 90000. */
  timeoutMs?: number;
  /**
   * What to wait for: "started" (default: the herder has taken every connector of the file) or "listening"
   * (the REST listener is open; for a daemon that cannot finish starting, e.g. without Kafka).
   */
  until?: "started" | "listening";
}

/**
 * Starts the daemon with `config`; the REST listener is always on a free port and files live in the temp dir.
 * The daemon must log at info level or below: the harness learns the REST URL from its "listening" line (in
 * either log.format).
 */
export async function startDaemonProcess(
  config: DaemonConfig,
  options: StartDaemonOptions = {},
): Promise<DaemonProcess> {
  const dir = options.dir ?? await Deno.makeTempDir({ prefix: "tablesync-it-" });
  const configPath = `${dir}/tablesync.json`;
  const worker = {
    "listeners": "http://127.0.0.1:0",
    "offset.storage.file.filename": `${dir}/offsets.json`,
    "config.storage.file.filename": `${dir}/connectors.json`,
    "log.level": "info",
    ...config.worker,
  };
  await Deno.writeTextFile(configPath, JSON.stringify({ worker, connectors: config.connectors }, null, 2));
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", V8_FLAGS, MAIN, "run", "--config", configPath],
    env: { NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  let restUrl: string | undefined;
  const listening = Promise.withResolvers<string>();
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    let buffer = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        lines.push(line);
        const m = /REST API listening on (https?:\/\/[^\s"]+)/.exec(line);
        if (m) restUrl = m[1];
        if (restUrl && options.until === "listening") listening.resolve(restUrl);
        // Ready once the herder has taken every connector of the file ("tablesync started" follows it).
        if (restUrl && /\btablesync started\b/.test(line)) listening.resolve(restUrl);
      }
    }
    if (buffer) lines.push(buffer);
  };
  const readers = Promise.all([collect(process.stdout), collect(process.stderr)]);
  const exited = process.status.then((s) => {
    listening.reject(new Error(`daemon exited with code ${s.code} before listening:\n${lines.join("\n")}`));
    return s;
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const url = await Promise.race([
    listening.promise,
    new Promise<never>((_, reject) =>
      timer = setTimeout(
        () => reject(new Error(`daemon did not start listening:\n${lines.join("\n")}`)),
        options.timeoutMs ?? 90_000,
      )
    ),
  ]).finally(() => clearTimeout(timer));

  const request = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      // A daemon that stops answering fails the test with this error instead of hanging it.
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch { /* not JSON: keep the text */ }
    return { status: res.status, body: parsed as any, headers: res.headers };
  };

  return {
    url,
    dir,
    configPath,
    process,
    output: () => lines.join("\n"),
    request,
    async stop(signal: Deno.Signal = "SIGTERM") {
      const started = performance.now();
      try {
        process.kill(signal);
      } catch { /* already exited */ }
      const status = await exited;
      await readers;
      return { code: status.code, ms: performance.now() - started };
    },
  };
}
