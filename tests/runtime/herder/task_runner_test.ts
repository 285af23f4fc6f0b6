/** Supervision: a worker that throws uncaught, or goes silent, makes its task FAILED with a trace; nothing else breaks. */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { TaskRunner } from "../../../src/runtime/herder/task_runner.ts";
import { startMessage } from "../../support/task_start.ts";
import { waitFor } from "../../support/wait.ts";

/** The start message of task 0 of source connector "c". */
const sourceStart = () => startMessage("source", { name: "c" }, {});

Deno.test("a task thread that throws an uncaught error is FAILED with its trace", async () => {
  let changes = 0;
  const runner = new TaskRunner(sourceStart(), { onOffsets: () => {}, onStateChange: () => changes++ }, {
    taskThreadUrl: new URL("../fixtures/throwing_task_thread.ts", import.meta.url),
  });
  await waitFor(() => runner.state === "FAILED", 10_000, "FAILED");
  assertStringIncludes(runner.trace!, "task blew up outside the driver");
  assertEquals(runner.warnings, [], "a failed task waits for nothing: its trace says what is wrong");
  assert(changes >= 2, "state changes reported");
  await runner.stop(100);
  assertEquals(runner.state, "FAILED");
});

Deno.test("a task thread that goes silent is FAILED by the watchdog", async () => {
  const runner = new TaskRunner(sourceStart(), { onOffsets: () => {}, onStateChange: () => {} }, {
    taskThreadUrl: new URL("../fixtures/vanishing_task_thread.ts", import.meta.url),
    silenceLimitMs: 400,
  });
  await waitFor(() => runner.state === "FAILED", 10_000, "FAILED");
  assertStringIncludes(runner.trace!, "stopped responding");
  runner.kill();
});

Deno.test("a live worker is not taken for silent when the main thread itself did not run (SIGSTOP, a blocked loop)", async () => {
  const runner = new TaskRunner(sourceStart(), { onOffsets: () => {}, onStateChange: () => {} }, {
    taskThreadUrl: new URL("../fixtures/chatty_task_thread.ts", import.meta.url),
    silenceLimitMs: 400,
  });
  await waitFor(() => runner.state === "RUNNING", 10_000, "RUNNING");
  // The main thread stops for longer than the silence limit, as a stopped process does: the watchdog's tick comes
  // late, and the worker's messages are read only after it.
  const until = performance.now() + 1500;
  while (performance.now() < until) { /* the thread does not run its event loop */ }
  await new Promise((r) => setTimeout(r, 600));
  assertEquals(runner.state, "RUNNING", runner.trace ?? "");
  runner.kill();
});

Deno.test("a task waiting for its start (a fencing round) launches once it may, keeps a pause asked meanwhile, fails when the wait fails, never launches once stopped", async () => {
  // The throwing worker reports RUNNING before it throws: reaching FAILED with its trace proves it was launched.
  const taskThreadUrl = new URL("../fixtures/throwing_task_thread.ts", import.meta.url);
  const gate = Promise.withResolvers<void>();
  const start = sourceStart();
  const waiting = new TaskRunner(start, { onOffsets: () => {}, onStateChange: () => {} }, {
    taskThreadUrl,
    startAfter: gate.promise,
  });
  waiting.pause();
  assertEquals(start.paused, true, "the start message carries the pause");
  await new Promise((r) => setTimeout(r, 200));
  assertEquals(waiting.state, "UNASSIGNED", "not launched before the round");
  gate.resolve();
  await waitFor(() => waiting.state === "FAILED", 10_000, "launched");
  assertStringIncludes(waiting.trace!, "task blew up outside the driver");

  const refused = new TaskRunner(sourceStart(), { onOffsets: () => {}, onStateChange: () => {} }, {
    taskThreadUrl,
    startAfter: Promise.reject(new Error("fencing the transactional ids failed")),
  });
  await waitFor(() => refused.state === "FAILED", 10_000, "FAILED");
  assertStringIncludes(refused.trace!, "fencing the transactional ids failed");

  const stopped = Promise.withResolvers<void>();
  const cancelled = new TaskRunner(sourceStart(), { onOffsets: () => {}, onStateChange: () => {} }, {
    taskThreadUrl,
    startAfter: stopped.promise,
  });
  await cancelled.stop(100);
  stopped.resolve();
  await new Promise((r) => setTimeout(r, 300));
  assertEquals(cancelled.state, "UNASSIGNED", "stopped before its round: never launched");
});
