/**
 * The daemon's answers to `GET /health` and `GET /ready` (rest/probes.ts): where startup stands, whether the
 * Kafka cluster answers now (one admin connection kept for the probes, a check at most every second, never
 * waiting more than 3 s), and in group mode whether this member holds an assignment.
 */
import type { Admin, KafkaClient } from "../kafka/mod.ts";
import { settlesWithin } from "../common/delay.ts";
import type { ReadinessCheck, WorkerHealth, WorkerProbes } from "../rest/probes.ts";

/** Longest a readiness probe waits for Kafka. */
const KAFKA_CHECK_TIMEOUT_MS = 3000;
/** A Kafka check this recent is reused (probes from several load balancers cost one request). */
const KAFKA_CHECK_REUSE_MS = 1000;

export class DaemonReadiness implements WorkerProbes {
  #stage = "loading the config";
  #phase: "starting" | "started" | "stopping" = "starting";
  #kafka: KafkaReachability | null = null;
  #groupJoined: (() => boolean) | null = null;

  /** What startup is doing now (shown by /health and /ready while starting). */
  set stage(stage: string) {
    this.#stage = stage;
  }

  watchKafka(kafka: KafkaReachability): void {
    this.#kafka = kafka;
  }

  watchGroup(joined: () => boolean): void {
    this.#groupJoined = joined;
  }

  started(): void {
    this.#phase = "started";
  }

  stopping(): void {
    this.#phase = "stopping";
  }

  health(): WorkerHealth {
    return this.#phase === "starting"
      ? { status: "starting", message: `Worker is still starting up: ${this.#stage}.` }
      : { status: "healthy", message: "Worker has completed startup and is ready to handle requests." };
  }

  async readiness(): Promise<ReadinessCheck[]> {
    const checks: ReadinessCheck[] = [{ name: "config", ready: true }];
    checks.push(
      this.#phase === "started"
        ? { name: "worker", ready: true }
        : this.#phase === "stopping"
        ? { name: "worker", ready: false, message: "shutting down" }
        : { name: "worker", ready: false, message: `starting: ${this.#stage}` },
    );
    const kafkaProblem = this.#kafka ? await this.#kafka.problem() : "not connected yet";
    checks.push(
      kafkaProblem ? { name: "kafka", ready: false, message: kafkaProblem } : { name: "kafka", ready: true },
    );
    if (this.#groupJoined) {
      checks.push(
        this.#groupJoined() ? { name: "group", ready: true } : {
          name: "group",
          ready: false,
          message: "not a member of the worker group (joining or rebalancing)",
        },
      );
    }
    return checks;
  }

  async close(): Promise<void> {
    await this.#kafka?.close();
  }
}

/** Whether the Kafka cluster answers a metadata request now. */
export class KafkaReachability {
  #admin: Admin | null = null;
  #inFlight: Promise<string | null> | null = null;
  #last: { at: number; problem: string | null } | null = null;
  #closed = false;

  constructor(private readonly kafka: KafkaClient, private readonly servers: string) {}

  /** null when the cluster answered; else what went wrong. */
  async problem(): Promise<string | null> {
    if (this.#last && Date.now() - this.#last.at < KAFKA_CHECK_REUSE_MS) return this.#last.problem;
    const check = this.#inFlight ??= this.#check().finally(() => this.#inFlight = null);
    if (await settlesWithin(check, KAFKA_CHECK_TIMEOUT_MS)) return await check;
    return `no answer from Kafka at ${this.servers} within ${KAFKA_CHECK_TIMEOUT_MS / 1000} s`;
  }

  async #check(): Promise<string | null> {
    let problem: string | null = null;
    try {
      this.#admin ??= await this.kafka.admin();
      await this.#admin.clusterId();
    } catch (e) {
      problem = `cannot reach Kafka at ${this.servers}: ${(e as Error).message}`;
      const admin = this.#admin;
      this.#admin = null;
      await admin?.close().catch(() => {});
    }
    if (this.#closed) await this.close();
    this.#last = { at: Date.now(), problem };
    return problem;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const admin = this.#admin;
    this.#admin = null;
    await admin?.close().catch(() => {});
  }
}
