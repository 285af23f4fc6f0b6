/**
 * The simulator in a test: started for one body and always stopped.
 *
 * ```ts
 * await withSim({ seed: { incident: 10 } }, async (sim) => {
 *   const res = await fetch(`${sim.url}/api/now/table/incident`, {
 *     headers: { authorization: "Basic " + btoa("admin:secret") },
 *   });
 * });
 * ```
 */
import { type Simulator, type SimulatorOptions, startSimulator } from "../../src/sim/mod.ts";

/**
 * Runs `body` against a fresh simulator and always stops it. Unless `options` say otherwise: its clock frozen
 * at 2024-03-01 12:00:00 (so generated rows and answers do not depend on when the test runs), user admin:secret.
 */
export async function withSim(
  options: SimulatorOptions,
  body: (sim: Simulator) => Promise<void> | void,
): Promise<void> {
  const sim = await startSimulator({
    users: ["admin:secret"],
    clock: { mode: "frozen", at: "2024-03-01 12:00:00" },
    ...options,
  });
  try {
    await body(sim);
  } finally {
    await sim.stop();
  }
}
