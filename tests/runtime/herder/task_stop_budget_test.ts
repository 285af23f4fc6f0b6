/** The budget of a task's graceful stop (src/runtime/herder/task_stop_budget.ts): its steps in order, all within the timeout but the hard kill. */
import { assert, assertEquals } from "../../support/assert.ts";
import { taskStopBudget } from "../../../src/runtime/herder/task_stop_budget.ts";

Deno.test("a stop budget abandons writes, then gives up on the driver, within the timeout; the kill comes after it", () => {
  for (const timeoutMs of [0, 1, 5000, 30_000]) {
    const budget = taskStopBudget(timeoutMs);
    assert(
      budget.abandonWritesAfterMs <= budget.awaitDriverMs,
      `${timeoutMs}: writes abandoned before the wait ends`,
    );
    assert(budget.awaitDriverMs <= timeoutMs, `${timeoutMs}: the wait ends within the timeout`);
    assert(budget.terminateAfterMs > timeoutMs, `${timeoutMs}: the kill comes only after the timeout`);
  }
  // The shares are the ones the docs and the task thread rely on: most of it for writes, a fifth left to close.
  assertEquals(taskStopBudget(10_000), {
    abandonWritesAfterMs: 6000,
    awaitDriverMs: 8000,
    terminateAfterMs: 11_000,
  });
});
