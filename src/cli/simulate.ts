/**
 * `tablesync simulate`: runs the instance simulator until SIGINT/SIGTERM.
 * Prints `listening on <url>` on stdout once it accepts requests (scripts wait for that line).
 */
import { type FaultRule, SEEDABLE_TABLES, type SimulatorOptions, startSimulator } from "../sim/mod.ts";
import { SIMULATE_USAGE } from "./simulate_usage.ts";

class UsageError extends Error {}

function parsePositiveInt(flag: string, value: string | undefined, allowZero = true): number {
  if (value === undefined || !/^\d+$/.test(value)) throw new UsageError(`${flag} needs a number`);
  const n = Number(value);
  if (!allowZero && n === 0) throw new UsageError(`${flag} must be positive`);
  return n;
}

function parseSeed(value: string | undefined): Record<string, number> {
  if (!value) throw new UsageError("--seed needs T=N[,T=N...]");
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

/** Parses the flags into simulator options (exported for tests). */
export async function parseSimulateArgs(args: string[]): Promise<SimulatorOptions | "help"> {
  const options: SimulatorOptions = { port: 8089 };
  const users: string[] = [];
  const clients: string[] = [];
  const faults: FaultRule[] = [];
  const rule: { commitIntervalMs?: number; countsOwnRequests?: boolean } = {};
  const other: { requestsAtWindowStart?: number; requestsPerSecond?: number } = {};
  let cert: string | undefined, key: string | undefined, clientCa: string | undefined;
  for (let i = 0; i < args.length; i++) {
    let flag = args[i];
    let value: string | undefined;
    const eq = flag.indexOf("=");
    if (flag.startsWith("--") && eq > 0) {
      value = flag.slice(eq + 1);
      flag = flag.slice(0, eq);
    }
    const take = () => value ?? args[++i];
    switch (flag) {
      case "--help":
      case "-h":
        return "help";
      case "--port":
        options.port = parsePositiveInt(flag, take());
        break;
      case "--host":
        options.host = take();
        if (!options.host) throw new UsageError("--host needs a value");
        break;
      case "--seed":
        options.seed = { ...options.seed, ...parseSeed(take()) };
        break;
      case "--user": {
        const v = take();
        if (!v || !v.includes(":")) throw new UsageError("--user needs U:P");
        users.push(v);
        break;
      }
      case "--oauth-client": {
        const v = take();
        if (!v || !v.includes(":")) throw new UsageError("--oauth-client needs ID:SECRET");
        clients.push(v);
        break;
      }
      case "--latency-ms":
        options.latencyMs = parsePositiveInt(flag, take());
        break;
      case "--writer-rate":
        options.writer = { ...options.writer, rowsPerSecond: parsePositiveInt(flag, take(), false) };
        break;
      case "--writer-silent": {
        const percent = Number(take());
        if (!(percent >= 0 && percent <= 100)) {
          throw new UsageError("--writer-silent needs a percentage in [0, 100]");
        }
        options.writer = { rowsPerSecond: 0, ...options.writer, silentShare: percent / 100 };
        break;
      }
      case "--rate-limit": {
        const m = /^(\d+)(?:\/(\d+))?$/.exec(take() ?? "");
        if (!m || Number(m[1]) === 0 || m[2] === "0") {
          throw new UsageError("--rate-limit needs N[/S]: N > 0 requests per S > 0 seconds");
        }
        options.rateLimit = { requests: Number(m[1]), windowSeconds: m[2] ? Number(m[2]) : undefined };
        break;
      }
      case "--sessions":
        options.sessions = { ...options.sessions };
        break;
      case "--session-max-waiters":
        options.sessions = { ...options.sessions, maxWaiters: parsePositiveInt(flag, take()) };
        break;
      case "--nodes":
        options.nodes = parsePositiveInt(flag, take(), false);
        break;
      case "--threads":
        options.semaphore = { ...options.semaphore, threads: parsePositiveInt(flag, take(), false) };
        break;
      case "--queue":
        options.semaphore = { ...options.semaphore, queue: parsePositiveInt(flag, take()) };
        break;
      case "--other-client-threads":
        options.semaphore = { ...options.semaphore, otherClientThreads: parsePositiveInt(flag, take()) };
        break;
      case "--rate-limit-commit-ms":
        rule.commitIntervalMs = parsePositiveInt(flag, take(), false);
        break;
      case "--rate-limit-committed-only":
        rule.countsOwnRequests = false;
        break;
      case "--rate-limit-shared":
        other.requestsAtWindowStart = parsePositiveInt(flag, take());
        break;
      case "--rate-limit-shared-rate": {
        const rate = Number(take());
        if (!(rate >= 0)) throw new UsageError(`${flag} needs a number of requests per second`);
        other.requestsPerSecond = rate;
        break;
      }
      case "--quota-ms":
        options.transactionQuota = { ...options.transactionQuota, ms: parsePositiveInt(flag, take(), false) };
        break;
      case "--quota-shape": {
        const shape = take();
        if (shape !== "cut_record" && shape !== "complete_rows") {
          throw new UsageError("--quota-shape needs cut_record or complete_rows");
        }
        options.transactionQuota = { ms: 60_000, ...options.transactionQuota, shape };
        break;
      }
      case "--random-seed":
        options.randomSeed = parsePositiveInt(flag, take());
        break;
      case "--acl-hide": {
        const percent = Number(take());
        if (!(percent > 0 && percent <= 100)) {
          throw new UsageError("--acl-hide needs a percentage in (0, 100]");
        }
        faults.push({ fault: { kind: "acl_hide", percent } });
        break;
      }
      case "--proxy-date":
        faults.push({ fault: { kind: "double_date" } });
        break;
      case "--tls-cert":
        cert = take();
        break;
      case "--tls-key":
        key = take();
        break;
      case "--tls-client-ca":
        clientCa = take();
        break;
      default:
        throw new UsageError(`unknown option ${args[i]}`);
    }
  }
  if (Object.keys(rule).length || Object.keys(other).length) {
    if (!options.rateLimit) {
      throw new UsageError(
        "--rate-limit-commit-ms, --rate-limit-committed-only and --rate-limit-shared* need --rate-limit",
      );
    }
    Object.assign(options.rateLimit, rule, Object.keys(other).length ? { otherIntegration: other } : {});
  }
  if (options.writer && !(options.writer.rowsPerSecond > 0)) {
    throw new UsageError("--writer-silent needs --writer-rate");
  }
  if (faults.length) options.faults = faults;
  if (users.length) options.users = users;
  if (clients.length) options.oauthClients = clients;
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
