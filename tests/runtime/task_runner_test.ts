/** Supervision: a worker that throws uncaught, or goes silent, makes its task FAILED with a trace; nothing else breaks. */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { TaskRunner } from "../../src/runtime/task_runner.ts";
import type { StartMessage } from "../../src/runtime/worker_protocol.ts";
import { waitFor } from "../support/daemon_process.ts";

function startMessage(): StartMessage {
  return {
    type: "start",
    kind: "source",
    connectorName: "c",
    taskId: 0,
    taskConfig: {},
    workerConfig: {},
    offsets: [],
    permitPools: {},
    logSettings: { format: "json", root: "silent", loggers: {} },
    paused: false,
  };
}

Deno.test("a worker that throws an uncaught error is FAILED with its trace", async () => {
  let changes = 0;
  const runner = new TaskRunner(startMessage(), { onOffsets: () => {}, onStateChange: () => changes++ }, {
    workerUrl: new URL("./fixtures/throwing_worker.ts", import.meta.url),
  });
  await waitFor(() => runner.state === "FAILED", 10_000, "FAILED");
  assertStringIncludes(runner.trace!, "task blew up outside the driver");
  assert(changes >= 2, "state changes reported");
  await runner.stop(100);
  assertEquals(runner.state, "FAILED");
});

Deno.test("a worker that goes silent is FAILED by the watchdog", async () => {
  const runner = new TaskRunner(startMessage(), { onOffsets: () => {}, onStateChange: () => {} }, {
    workerUrl: new URL("./fixtures/vanishing_worker.ts", import.meta.url),
    silenceLimitMs: 400,
  });
  await waitFor(() => runner.state === "FAILED", 10_000, "FAILED");
  assertStringIncludes(runner.trace!, "stopped responding");
  runner.kill();
});
