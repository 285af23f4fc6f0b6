/**
 * `tablesync probe [--ready] [--url URL | --config FILE] [--wait SECONDS]`: asks a running daemon's `/health`
 * (or `/ready`) and exits 0 when it answers 200, 1 otherwise. It is the probe a scratch image's HEALTHCHECK and a
 * systemd unit's ExecStartPost can run: the image has no shell, curl or wget, and the unit's start should finish
 * only once the worker serves (`--ready --wait 90`, within the unit's TimeoutStartSec=120).
 */
import { type Command, wantsHelp } from "./command.ts";
import { flag, parseArgs, UsageError } from "./args.ts";
import { loadConfigFile } from "../config/load.ts";
import { analyzeWorker } from "../config/worker_config.ts";
import { ConfigError } from "../common/config_error.ts";
import { redact } from "../observability/redact.ts";
import { sleepEndingOnAbort } from "../common/delay.ts";

const USAGE = `tablesync probe [--ready] [--url URL | --config FILE] [--wait SECONDS]

Asks a running daemon whether it is alive (GET /health) or, with --ready, ready (GET /ready:
config loaded, connectors started, Kafka answering, in a worker group a member with an assignment).
Prints the daemon's answer in one line. Neither path needs rest.auth.token.

  --ready          probe /ready instead of /health
  --url URL        the daemon's REST API, e.g. http://127.0.0.1:8083
  --config FILE    take the address from the config file's first listener (and $TABLESYNC_LISTENERS
                   when the file sets none); a wildcard host (0.0.0.0, [::]) is asked on the loopback
                   interface. An https:// listener's own certificate is trusted; it must name the
                   host asked (127.0.0.1 for a wildcard listener), else give --url with a name it holds.
  --wait SECONDS   ask again every second until the answer is 200 or SECONDS have passed

Without --url and --config it asks $TABLESYNC_LISTENERS's first listener, else http://127.0.0.1:8083.

  HEALTHCHECK CMD ["/usr/local/bin/tablesync", "probe"]                        (container image)
  ExecStartPost=/usr/local/bin/tablesync probe --ready --config FILE --wait 90    (systemd)

Exit status: 0 when the daemon answered 200, 1 when it answered otherwise or could not be reached,
2 on usage errors.`;

const DEFAULT_URL = "http://127.0.0.1:8083";
const WILDCARD_HOSTS = new Set(["0.0.0.0", "[::]", "::", ""]);

/** Where a daemon that listens on `listener` can be asked from this host. */
export function probeBaseUrl(listener: string): string {
  const url = new URL(listener);
  if (WILDCARD_HOSTS.has(url.hostname)) url.hostname = "127.0.0.1";
  return url.origin;
}

interface ProbeTarget {
  baseUrl: string;
  /** PEM of an https:// listener's certificate, trusted for this probe. */
  caCert?: string;
}

async function targetFromConfig(path: string): Promise<ProbeTarget> {
  const config = await loadConfigFile(path);
  const worker = analyzeWorker(config.worker);
  const listeners = (worker.values["listeners"] as string[] | null) ?? [];
  if (listeners.length === 0) {
    throw new ConfigError(`${path}: worker.listeners is empty: no REST API to probe`);
  }
  const baseUrl = probeBaseUrl(listeners[0]);
  const certPath = worker.values["listeners.https.ssl.certificate.location"] as string | null;
  if (!baseUrl.startsWith("https:") || !certPath) return { baseUrl };
  try {
    return { baseUrl, caCert: await Deno.readTextFile(certPath) };
  } catch (e) {
    throw new ConfigError(
      `${path}: listeners.https.ssl.certificate.location ${certPath}: cannot read it: ${
        (e as Error).message
      }`,
    );
  }
}

function targetFromEnvironment(): ProbeTarget {
  const first = Deno.env.get("TABLESYNC_LISTENERS")?.split(",")[0]?.trim();
  if (!first) return { baseUrl: DEFAULT_URL };
  try {
    return { baseUrl: probeBaseUrl(first) };
  } catch {
    throw new ConfigError(`TABLESYNC_LISTENERS: ${first} is not a URL (e.g. http://0.0.0.0:8083)`);
  }
}

/** One GET: the status and the answer's message (or why there was no answer). */
async function ask(target: ProbeTarget, path: string): Promise<{ ok: boolean; line: string }> {
  const client = target.caCert ? Deno.createHttpClient({ caCerts: [target.caCert] }) : undefined;
  try {
    const res = await fetch(target.baseUrl + path, { client, signal: AbortSignal.timeout(5_000) });
    const text = await res.text();
    let message = text.trim();
    try {
      const body = JSON.parse(text);
      message = `${body.status ?? ""}: ${body.message ?? ""}`.trim();
    } catch { /* not JSON: say the text */ }
    return { ok: res.status === 200, line: `${target.baseUrl}${path}: ${res.status} ${message}` };
  } catch (e) {
    return { ok: false, line: `${target.baseUrl}${path}: no answer: ${(e as Error).message}` };
  } finally {
    client?.close();
  }
}

export const probeCommand: Command = {
  name: "probe",
  summary: "ask a running daemon's /health or /ready (for HEALTHCHECK and systemd)",
  usage: USAGE,
  async run(args) {
    if (wantsHelp(args)) {
      console.log(USAGE);
      return 0;
    }
    const parsed = parseArgs(args, { values: ["url", "config", "wait"], booleans: ["ready"] });
    if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument ${parsed.positionals[0]}`);
    const url = flag(parsed, "url");
    const configPath = flag(parsed, "config");
    if (url && configPath) throw new UsageError("give --url or --config, not both");
    const waitText = flag(parsed, "wait");
    const waitSeconds = waitText === undefined ? 0 : Number(waitText);
    if (!Number.isFinite(waitSeconds) || waitSeconds < 0) {
      throw new UsageError(`--wait ${waitText}: must be a number of seconds (0 or more)`);
    }
    let target: ProbeTarget;
    try {
      if (url) {
        try {
          target = { baseUrl: probeBaseUrl(url) };
        } catch {
          throw new UsageError(`--url ${url}: not a URL (e.g. http://127.0.0.1:8083)`);
        }
      } else target = configPath ? await targetFromConfig(configPath) : targetFromEnvironment();
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      console.error(`error: ${redact(e.message)}`);
      return 1;
    }
    const path = parsed.booleans.has("ready") ? "/ready" : "/health";
    const deadline = Date.now() + waitSeconds * 1000;
    for (;;) {
      const answer = await ask(target, path);
      if (answer.ok || Date.now() >= deadline) {
        (answer.ok ? console.log : console.error)(redact(answer.line));
        return answer.ok ? 0 : 1;
      }
      await sleepEndingOnAbort(Math.min(1_000, Math.max(0, deadline - Date.now())));
    }
  },
};
