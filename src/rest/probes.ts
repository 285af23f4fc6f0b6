/**
 * Probes for systemd, containers and load balancers. Both answer without the bearer token (they hold no data,
 * only whether the worker is up and, when not, which check fails) and from the moment the listener opens.
 *
 * - `GET /health`: liveness, as Kafka Connect 4.x's (KIP-1017): 200 `{"status":"healthy","message":...}` once
 *   the worker has started; 503 `{"status":"starting",...}` before, saying what it is doing.
 * - `GET /ready`: readiness: 200 only when the config is loaded, the worker has started its connectors, the
 *   Kafka cluster answers now and, in a worker group, this member holds an assignment; else 503 naming each
 *   check that fails. While shutting down it is 503, so a load balancer stops sending work first.
 */
import type { Router } from "./router.ts";
import { json } from "./responses.ts";

export interface WorkerHealth {
  status: "healthy" | "starting";
  message: string;
}

export interface ReadinessCheck {
  /** What is checked: `config`, `worker`, `kafka`, `group`. */
  name: string;
  ready: boolean;
  /** Why it is not ready (or a note when it is). */
  message?: string;
}

export interface WorkerProbes {
  health(): WorkerHealth;
  readiness(): Promise<ReadinessCheck[]>;
}

export const PROBE_PATHS: readonly string[] = ["/health", "/ready"];

export function probeRoutes(router: Router, probes: WorkerProbes): void {
  router.add("GET", "/health", () => {
    const health = probes.health();
    return json(health, health.status === "healthy" ? 200 : 503);
  });
  router.add("GET", "/ready", async () => {
    const checks = await probes.readiness();
    const failing = checks.filter((c) => !c.ready);
    const byName = Object.fromEntries(
      checks.map((c) => [c.name, c.message ? { ready: c.ready, message: c.message } : { ready: c.ready }]),
    );
    if (failing.length === 0) {
      return json({ status: "ready", message: "Worker is ready to handle requests.", checks: byName });
    }
    const message = `Worker is not ready: ${
      failing.map((c) => `${c.name}: ${c.message ?? "not ready"}`).join("; ")
    }`;
    return json({ status: "not ready", message, checks: byName }, 503);
  });
}
