/**
 * `tablesync simulate`: runs the instance simulator until SIGINT/SIGTERM.
 * Prints `listening on <url>` on stdout once it accepts requests (scripts wait for that line).
 */
import { type FaultRule, SEEDABLE_TABLES, type SimulatorOptions, startSimulator } from "../sim/mod.ts";
import { SIMULATE_USAGE } from "./simulate_usage.ts";
import { flag, parseArgs, type ParsedArgs, UsageError } from "./args.ts";

const VALUES = [
  "port",
  "host",
  "seed",
  "user",
  "oauth-client",
  "latency-ms",
  "writer-rate",
  "writer-silent",
  "rate-limit",
  "session-max-waiters",
  "nodes",
  "threads",
  "queue",
  "other-client-threads",
  "rate-limit-commit-ms",
  "rate-limit-shared",
  "rate-limit-shared-rate",
  "quota-ms",
  "quota-shape",
  "random-seed",
  "acl-hide",
  "tls-cert",
  "tls-key",
  "tls-client-ca",
];
const BOOLEANS = ["help", "sessions", "rate-limit-committed-only", "proxy-date"];

function parsePositiveInt(name: string, value: string, allowZero = true): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} needs a number`);
  const n = Number(value);
  if (!allowZero && n === 0) throw new UsageError(`--${name} must be positive`);
  return n;
}

function parseSeed(value: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of value.split(",")) {
    const m = /^([a-z0-9_]+)=(\d+)$/.exec(part.trim());
    if (!m) throw new UsageError(`--seed: bad entry "${part}" (expected table=count)`);
    // Checked here so a table it cannot generate is a usage error, not an uncaught RangeError at start.
    if (!SEEDABLE_TABLES.includes(m[1])) {
      throw new UsageError(`--seed: cannot generate rows for ${m[1]}; tables: ${SEEDABLE_TABLES.join(", ")}`);
    }
    out[m[1]] = Number(m[2]);
  }
  return out;
}

/** `U:P` or `ID:SECRET` pairs of a repeatable flag. */
function pairs(parsed: ParsedArgs, name: string, shape: string): string[] {
  const values = parsed.flags.get(name) ?? [];
  for (const v of values) if (!v.includes(":")) throw new UsageError(`--${name} needs ${shape}`);
  return values;
}

/** Parses the flags into simulator options (exported for tests). */
export async function parseSimulateArgs(args: string[]): Promise<SimulatorOptions | "help"> {
  const parsed = parseArgs(args, {
    values: VALUES,
    booleans: BOOLEANS,
    repeatable: ["seed", "user", "oauth-client"],
  });
  if (parsed.booleans.has("help") || parsed.positionals.includes("-h")) return "help";
  if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument ${parsed.positionals[0]}`);
  const has = (name: string) => parsed.flags.has(name) || parsed.booleans.has(name);
  const int = (name: string, allowZero = true) => parsePositiveInt(name, flag(parsed, name)!, allowZero);
  const options: SimulatorOptions = { port: has("port") ? int("port") : 8089 };
  if (has("host")) options.host = flag(parsed, "host");
  for (const seed of parsed.flags.get("seed") ?? []) options.seed = { ...options.seed, ...parseSeed(seed) };
  const users = pairs(parsed, "user", "U:P");
  const clients = pairs(parsed, "oauth-client", "ID:SECRET");
  if (has("latency-ms")) options.latencyMs = int("latency-ms");
  if (has("writer-rate")) options.writer = { rowsPerSecond: int("writer-rate", false) };
  if (has("writer-silent")) {
    const percent = Number(flag(parsed, "writer-silent"));
    if (!(percent >= 0 && percent <= 100)) {
      throw new UsageError("--writer-silent needs a percentage in [0, 100]");
    }
    if (!options.writer) throw new UsageError("--writer-silent needs --writer-rate");
    options.writer.silentShare = percent / 100;
  }
  if (has("rate-limit")) {
    const m = /^(\d+)(?:\/(\d+))?$/.exec(flag(parsed, "rate-limit")!);
    if (!m || Number(m[1]) === 0 || m[2] === "0") {
      throw new UsageError("--rate-limit needs N[/S]: N > 0 requests per S > 0 seconds");
    }
    options.rateLimit = { requests: Number(m[1]), windowSeconds: m[2] ? Number(m[2]) : undefined };
  }
  if (has("sessions")) options.sessions = {};
  if (has("session-max-waiters")) options.sessions = { maxWaiters: int("session-max-waiters") };
  if (has("nodes")) options.nodes = int("nodes", false);
  if (has("threads")) options.semaphore = { ...options.semaphore, threads: int("threads", false) };
  if (has("queue")) options.semaphore = { ...options.semaphore, queue: int("queue") };
  if (has("other-client-threads")) {
    options.semaphore = { ...options.semaphore, otherClientThreads: int("other-client-threads") };
  }
  const rule: { commitIntervalMs?: number; countsOwnRequests?: boolean } = {};
  if (has("rate-limit-commit-ms")) rule.commitIntervalMs = int("rate-limit-commit-ms", false);
  if (has("rate-limit-committed-only")) rule.countsOwnRequests = false;
  const other: { requestsAtWindowStart?: number; requestsPerSecond?: number } = {};
  if (has("rate-limit-shared")) other.requestsAtWindowStart = int("rate-limit-shared");
  if (has("rate-limit-shared-rate")) {
    const rate = Number(flag(parsed, "rate-limit-shared-rate"));
    if (!(rate >= 0)) throw new UsageError("--rate-limit-shared-rate needs a number of requests per second");
    other.requestsPerSecond = rate;
  }
  if (has("quota-ms")) options.transactionQuota = { ms: int("quota-ms", false) };
  if (has("quota-shape")) {
    const shape = flag(parsed, "quota-shape");
    if (shape !== "cut_record" && shape !== "complete_rows") {
      throw new UsageError("--quota-shape needs cut_record or complete_rows");
    }
    options.transactionQuota = { ms: 60_000, ...options.transactionQuota, shape };
  }
  if (has("random-seed")) options.randomSeed = int("random-seed");
  const faults: FaultRule[] = [];
  if (has("acl-hide")) {
    const percent = Number(flag(parsed, "acl-hide"));
    if (!(percent > 0 && percent <= 100)) throw new UsageError("--acl-hide needs a percentage in (0, 100]");
    faults.push({ fault: { kind: "acl_hide", percent } });
  }
  if (has("proxy-date")) faults.push({ fault: { kind: "double_date" } });
  if (Object.keys(rule).length || Object.keys(other).length) {
    if (!options.rateLimit) {
      throw new UsageError(
        "--rate-limit-commit-ms, --rate-limit-committed-only and --rate-limit-shared* need --rate-limit",
      );
    }
    Object.assign(options.rateLimit, rule, Object.keys(other).length ? { otherIntegration: other } : {});
  }
  if (faults.length) options.faults = faults;
  if (users.length) options.users = users;
  if (clients.length) options.oauthClients = clients;
  const cert = flag(parsed, "tls-cert"),
    key = flag(parsed, "tls-key"),
    clientCa = flag(parsed, "tls-client-ca");
  if ((cert === undefined) !== (key === undefined)) {
    throw new UsageError("--tls-cert and --tls-key go together");
  }
  if (clientCa && !cert) throw new UsageError("--tls-client-ca needs --tls-cert and --tls-key");
  if (cert && key) {
    options.tls = {
      cert: await Deno.readTextFile(cert),
      key: await Deno.readTextFile(key),
      ...(clientCa ? { caForClientCerts: await Deno.readTextFile(clientCa), requireClientCert: true } : {}),
    };
  }
  return options;
}

export async function simulateCommand(args: string[]): Promise<number> {
  let options: SimulatorOptions | "help";
  try {
    options = await parseSimulateArgs(args);
  } catch (e) {
    if (!(e instanceof UsageError) && !(e instanceof Deno.errors.NotFound)) throw e;
    console.error(`tablesync simulate: ${(e as Error).message}\n\n${SIMULATE_USAGE}`);
    return 2;
  }
  if (options === "help") {
    console.log(SIMULATE_USAGE);
    return 0;
  }
  const sim = await startSimulator(options);
  const stopped = Promise.withResolvers<void>();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  const onSignal = () => stopped.resolve();
  for (const s of signals) Deno.addSignalListener(s, onSignal);
  console.log(`listening on ${sim.url}`);
  await stopped.promise;
  for (const s of signals) Deno.removeSignalListener(s, onSignal);
  await sim.stop();
  return 0;
}

if (import.meta.main) Deno.exit(await simulateCommand(Deno.args));
