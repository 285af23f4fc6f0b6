/**
 * The task thread's entry (src/runtime/task/task_thread.ts), run as the runtime runs it: in a Web Worker started
 * by a TaskRunner. A start message with an invalid config makes the task FAILED with the problem in its trace; a
 * sink task (the simulator and the real broker) reports RUNNING, follows pause and resume, and on stop ends with
 * its final metrics and `stopped` within its budget, not terminated.
 */
import { asStrings, startMessage } from "../../support/task_start.ts";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../../support/kafka_broker.ts";
import { SCHEMALESS_JSON, sinkConnectorConfig } from "../../support/sink_connector.ts";
import { capturingLogs } from "../../support/logs.ts";
import { waitFor } from "../../support/wait.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import { exportPermitPools } from "../../../src/instance/permit_registry.ts";
import { startSimulator } from "../../../src/sim/mod.ts";
import { TaskRunner } from "../../../src/runtime/herder/task_runner.ts";
import type { StartMessage } from "../../../src/runtime/task/thread_messages.ts";

setLogLevel("warn");

const PASSWORD = "pw-Thread-Plover-2";

/** The start message of task 0 of sink connector thread-test, as the main thread sends it. */
function start(taskConfig: Record<string, string>, workerConfig: Record<string, string>): StartMessage {
  return startMessage("sink", { name: "thread-test", ...taskConfig }, workerConfig, {
    permitPools: exportPermitPools(),
  });
}

const sinkConfig = (url: string, topic: string) =>
  asStrings(sinkConnectorConfig(url, PASSWORD, { topics: topic, ...SCHEMALESS_JSON }));

Deno.test("a task thread given an invalid config reports FAILED with the problem", async () => {
  const runner = new TaskRunner(
    start({ ...sinkConfig("http://127.0.0.1:1", "t"), "errors.tolerance": "some" }, {
      "bootstrap.servers": "127.0.0.1:1",
    }),
    { onOffsets: () => {}, onStateChange: () => {} },
  );
  await waitFor(() => runner.state === "FAILED", 30_000, "FAILED");
  assertStringIncludes(runner.trace!, "task config is invalid");
  assertStringIncludes(runner.trace!, "errors.tolerance");
  await runner.stop(1000);
});

Deno.test({
  name: "a sink task thread runs, pauses, resumes, and stops within its budget with its final metrics",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const broker = await startKafkaBroker();
    const sim = await startSimulator({ seed: { incident: 0 }, users: [`admin:${PASSWORD}`] });
    const topic = uniqueName("thread");
    await broker.createTopic(topic, 1);
    const states: string[] = [];
    const runner = new TaskRunner(
      start(sinkConfig(sim.url, topic), { "bootstrap.servers": broker.bootstrapServers }),
      { onOffsets: () => {}, onStateChange: () => states.push(runner.state) },
    );
    try {
      await waitFor(() => runner.state === "RUNNING", 60_000, "RUNNING");
      runner.pause();
      await waitFor(() => runner.state === "PAUSED", 10_000, "PAUSED");
      runner.resume();
      await waitFor(() => runner.state === "RUNNING", 10_000, "RUNNING again");
      const { lines } = await capturingLogs(() => runner.stop(20_000));
      // Not terminated: the task thread reported `stopped` before its budget ran out.
      assert(!lines.some((l) => l.includes("did not stop in time")), lines.join(""));
      assertEquals(runner.state, "UNASSIGNED");
      assertEquals(runner.trace, undefined);
      assert(runner.metrics.counters.length + runner.metrics.gauges.length > 0, "its final metrics arrived");
      assertEquals(states.filter((s, i) => s !== states[i - 1]).slice(0, 3), [
        "RUNNING",
        "PAUSED",
        "RUNNING",
      ]);
    } finally {
      runner.kill();
      await sim.stop();
    }
  },
});
