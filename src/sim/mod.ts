/**
 * The instance simulator: a table REST API server that behaves like the instance described in
 * shared/reference/table-api.md, for tests, the demo and benchmarks.
 *
 * ```ts
 * const sim = await startSimulator({ seed: { incident: 1000 }, users: ["admin:secret"] });
 * const res = await fetch(`${sim.url}/api/now/table/incident?sysparm_limit=5`, {
 *   headers: { authorization: "Basic " + btoa("admin:secret") },
 * });
 * sim.clock.freeze("2024-01-01 00:00:00");
 * sim.faults.add({ route: "GET /api/now/table/incident", fault: { kind: "busy" }, times: 1 });
 * await sim.stop();
 * ```
 *
 * It shares no code with the client in src/instance/ on purpose: an independent implementation is what
 * lets it catch the client's bugs.
 */
import { SimulatorImpl } from "./simulator.ts";
export { SEEDABLE_TABLES } from "./simulator.ts";
import type { Simulator } from "./api.ts";
import type { SimulatorOptions } from "./options.ts";

export type {
  DirectDeleteOptions,
  DirectWriteOptions,
  SimRow,
  SimTable,
  Simulator,
  SimWriter,
} from "./api.ts";

export type { InstanceClock } from "./clock.ts";
export type { FaultRegistry, FaultRule } from "./faults.ts";
export type { Journal, JournalEntry } from "./journal.ts";
export type { Counters } from "./counters.ts";
export type { WriterSettings } from "./writer.ts";
export type { RateLimitRuleSpec } from "./rate_limit_rule.ts";
export type { QuotaShape } from "./limits/quota.ts";
export type {
  SimOAuthClientSpec,
  SimSemaphoreOptions,
  SimSessionOptions,
  SimulatorOptions,
  SimUserSpec,
} from "./options.ts";

/** Starts a simulator and resolves once it accepts requests. */
export function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  return SimulatorImpl.start(options);
}
