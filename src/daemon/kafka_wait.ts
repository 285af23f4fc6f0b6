/**
 * Waits for the Kafka cluster at start, as Kafka Connect's worker does: it asks for the cluster id, retrying,
 * and gives up after a timeout (Connect's is its admin client's default.api.timeout.ms, 60 s; ours 30 s), and the
 * process exits 1. Each round first opens a TCP connection to a bootstrap server, which tells an unreachable
 * broker at once and in plain words ("connection refused", "host not found"), where the client would retry for
 * seconds and end in a chain of exceptions; then it asks for the cluster id through the client.
 *
 * While the cluster cannot be reached, `onWaiting` gets one line per distinct reason; an abort (a signal during
 * start) ends the wait with a KafkaWaitAborted. A cluster that refuses tablesync's credentials ends the wait at
 * once, as Connect's worker stops on a SaslAuthenticationException: retrying cannot help. The client given
 * should log quietly: the wait reports its reasons itself, where the client would log every retry.
 */
import type { KafkaClient } from "../kafka/mod.ts";
import { settlesWithin, sleepEndingOnAbort } from "../common/delay.ts";

export class KafkaUnreachableError extends Error {
  override name = "KafkaUnreachableError";
}

export class KafkaWaitAborted extends Error {
  override name = "KafkaWaitAborted";
}

export interface KafkaWaitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Called with "cannot reach Kafka at ...: <reason>" when a round fails for a reason not reported yet. */
  onWaiting?: (line: string) => void;
  /** How long one request for the cluster id may go unanswered before the wait says so; default 10 s. */
  silenceMs?: number;
}

const CONNECT_TIMEOUT_MS = 5_000;
const RETRY_MS = 1_000;
const SILENCE_MS = 10_000;

/** The cluster id, once the cluster answers. */
export async function waitForKafka(kafka: KafkaClient, options: KafkaWaitOptions): Promise<string> {
  const servers = kafka.connection.brokers;
  const where = `Kafka at ${servers.join(",")} (bootstrap.servers)`;
  const deadline = Date.now() + options.timeoutMs;
  let reported = "";
  // A request for the cluster id still unanswered (a port that accepts but does not speak Kafka, a broker that
  // hangs): the next round waits on for it rather than asking again, after saying so.
  let asking: Promise<string> | null = null;
  for (;;) {
    if (options.signal?.aborted) throw new KafkaWaitAborted(`stopped while waiting for ${where}`);
    const unreachable = await firstUnreachable(servers);
    asking = unreachable ? null : asking ?? askClusterId(kafka);
    const within = Math.max(1, Math.min(options.silenceMs ?? SILENCE_MS, deadline - Date.now()));
    const reason = unreachable ?? await clusterIdOrReason(asking!, within);
    if (reason.ok) return reason.clusterId;
    if (reason.why !== NO_ANSWER) asking = null; // it settled: the next round asks again
    if (reason.refused) {
      throw new KafkaUnreachableError(
        `${where} refused tablesync's credentials: ${reason.why} (check security.protocol, sasl.mechanism, ` +
          `sasl.jaas.config)`,
      );
    }
    if (Date.now() >= deadline) {
      // A round cut short by the deadline knows no reason of its own: the last one seen says more.
      const why = reason.why === NO_ANSWER && reported ? reported : reason.why;
      throw new KafkaUnreachableError(
        `cannot reach ${where}: ${why}; gave up after ${Math.round(options.timeoutMs / 1000)} s`,
      );
    }
    if (reason.why !== reported) {
      reported = reason.why;
      options.onWaiting?.(
        `cannot reach ${where}: ${reason.why}; retrying for up to ${Math.round(options.timeoutMs / 1000)} s`,
      );
    }
    await sleepEndingOnAbort(RETRY_MS, options.signal);
  }
}

type Round = { ok: true; clusterId: string } | { ok: false; why: string; refused?: boolean };

const NO_ANSWER = "the cluster does not answer";

/** A reason when no bootstrap server accepts a TCP connection; undefined when one does. */
async function firstUnreachable(servers: string[]): Promise<Round | undefined> {
  let why = "";
  for (const server of servers) {
    const colon = server.lastIndexOf(":");
    const hostname = server.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
    const connecting = Deno.connect({ hostname, port: Number(server.slice(colon + 1)) });
    try {
      if (await settlesWithin(connecting, CONNECT_TIMEOUT_MS)) {
        (await connecting).close();
        return undefined;
      }
      connecting.then((c) => c.close(), () => {});
      why ||= `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`;
    } catch (e) {
      why ||= describeConnectError(e as Error);
    }
  }
  return { ok: false, why };
}

/** The cluster id through a short-lived admin client (closed however the request ends). */
function askClusterId(kafka: KafkaClient): Promise<string> {
  const asking = (async () => {
    const admin = await kafka.admin();
    try {
      return await admin.clusterId();
    } finally {
      await admin.close().catch(() => {});
    }
  })();
  asking.catch(() => {}); // a request given up on when the wait ends may still fail
  return asking;
}

async function clusterIdOrReason(asking: Promise<string>, withinMs: number): Promise<Round> {
  try {
    if (await settlesWithin(asking, withinMs)) {
      return { ok: true, clusterId: await asking };
    }
    return { ok: false, why: NO_ANSWER };
  } catch (e) {
    const why = oneLine(e as Error);
    if (isAuthenticationFailure(e as Error)) return { ok: false, why, refused: true };
    // kafkajs's words when the broker hangs up on its first request: typically a TLS or SASL listener.
    if (/^(Closed connection|Connection closed)/.test(why)) {
      return {
        ok: false,
        why: `${why} (the broker hung up: does its listener want TLS or SASL? security.protocol)`,
      };
    }
    return { ok: false, why };
  }
}

/** A SASL handshake or authentication the broker refused (kafkajs's own error, or one it wraps). */
function isAuthenticationFailure(e: Error): boolean {
  for (let error: unknown = e; error instanceof Error; error = error.cause) {
    if (/SASLAuthenticationError$/.test(error.name) || /authentication failed/i.test(error.message)) {
      return true;
    }
  }
  return false;
}

function describeConnectError(e: Error): string {
  if (e instanceof Deno.errors.ConnectionRefused) return "connection refused";
  if (/lookup|name or service not known|nodename nor servname|no address/i.test(e.message)) {
    return "host not found";
  }
  if (e instanceof Deno.errors.TimedOut) return "connection timed out";
  return e.message;
}

/** An error and its causes in one line, without stacks. */
export function oneLine(e: Error): string {
  const parts = [e.message || e.name];
  for (let cause = e.cause; cause instanceof Error && parts.length < 4; cause = cause.cause) {
    // A cause whose words the line already holds (errors that quote their cause) adds nothing.
    if (!parts.some((part) => part.includes(cause.message))) parts.push(cause.message);
  }
  return parts.join(": ");
}
