/**
 * Starting and stopping a connector's tasks (src/runtime/herder/connector_lifecycle.ts), with the real plugins,
 * validator and file offset store; the task threads run a fixture that reports RUNNING and stops when asked. An
 * invalid config makes the connector FAILED without a task; the plugin's task configs start one task thread each
 * (only those the placement gives this member); the target states STOPPED, RUNNING and PAUSED move the connector
 * and its tasks; stopping makes the tasks' offsets durable.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { sourceConnectorConfig } from "../../support/source_connector.ts";
import { waitFor } from "../../support/wait.ts";
import { CONNECTOR_PLUGINS } from "../../../src/daemon/plugins.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import {
  ConnectorLifecycle,
  type LifecycleOptions,
} from "../../../src/runtime/herder/connector_lifecycle.ts";
import { ConnectorValidator } from "../../../src/runtime/herder/connector_validation.ts";
import type { ManagedConnector } from "../../../src/runtime/herder/managed.ts";
import { FileOffsetStore } from "../../../src/runtime/offsets/file_store.ts";

setLogLevel("error");

const IDLE_TASK_THREAD = new URL("../fixtures/idle_task_thread.ts", import.meta.url);

const config = (extra: Record<string, string> = {}): Record<string, string> => ({
  ...Object.fromEntries(
    Object.entries(sourceConnectorConfig("http://127.0.0.1:9", "pw-Life-Finch-4", {
      incident: "life.incident",
      problem: "life.problem",
    })).map(([k, v]) => [k, String(v)]),
  ),
  name: "life",
  "tasks.max": "2",
  ...extra,
});

function managed(
  validator: ConnectorValidator,
  raw: Record<string, string>,
  target: ManagedConnector["target"],
) {
  return {
    name: raw.name,
    config: raw,
    plugin: validator.pluginFor(raw),
    target,
    state: "UNASSIGNED",
    tasks: [],
    taskConfigs: [],
    activeTopics: new Set(),
  } as ManagedConnector;
}

/** A lifecycle over a fresh file offset store; `flushes` counts the store's flushes. */
async function lifecycle(options: Partial<LifecycleOptions> = {}) {
  const dir = await Deno.makeTempDir();
  const store = new FileOffsetStore({ path: `${dir}/offsets.json` });
  await store.start();
  let flushes = 0;
  const flush = store.flush.bind(store);
  store.flush = () => (flushes++, flush());
  const validator = new ConnectorValidator(CONNECTOR_PLUGINS, {});
  const life = new ConnectorLifecycle({
    workerRaw: {},
    offsets: store,
    validator,
    gracefulTimeoutMs: 5000,
    isCurrent: () => true,
    taskThreadUrl: IDLE_TASK_THREAD,
    ...options,
  });
  return {
    life,
    validator,
    flushes: () => flushes,
    [Symbol.asyncDispose]: async () => {
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("an invalid config makes the connector FAILED with the problems, and starts no task", async () => {
  await using l = await lifecycle();
  const { "svc.url": _url, ...withoutUrl } = config();
  const m = managed(l.validator, withoutUrl, "RUNNING");
  l.life.start(m);
  assertEquals(m.state, "FAILED");
  assert(m.trace?.startsWith("Connector configuration is invalid:"), m.trace);
  assert(m.trace?.includes("svc.url"), m.trace);
  assertEquals(m.tasks, []);
});

Deno.test("a connector's task configs start a task thread each; STOPPED, RUNNING and PAUSED move it", async () => {
  await using l = await lifecycle();
  const m = managed(l.validator, config(), "STOPPED");
  l.life.start(m);
  assertEquals([m.state, m.tasks.length], ["STOPPED", 0], "a stopped connector starts no task");

  await l.life.applyTarget(m, "RUNNING");
  assertEquals(m.state, "RUNNING");
  assertEquals(m.taskConfigs.length, 2, "one task config per table (tasks.max=2)");
  assertEquals(m.tasks.map((t) => t.taskId), [0, 1]);
  await waitFor(() => m.tasks.every((t) => t.state === "RUNNING"), 30_000, "both task threads RUNNING");

  await l.life.applyTarget(m, "PAUSED");
  assertEquals(m.state, "PAUSED");

  const tasks = m.tasks;
  const flushesBefore = l.flushes();
  await l.life.applyTarget(m, "STOPPED");
  assertEquals([m.state, m.tasks.length, m.taskConfigs.length], ["STOPPED", 0, 0]);
  assert(tasks.every((t) => t.state === "UNASSIGNED"), "the task threads were stopped");
  assert(l.flushes() > flushesBefore, "the offsets were made durable after the tasks stopped");
});

Deno.test("only the tasks the placement gives this member start here", async () => {
  await using l = await lifecycle({
    placement: {
      owns: (_connector, task) => task === 1,
      connectorWorker: () => "here:8083",
      readSharedOffsets: () => Promise.resolve(),
      requestRestart: () => Promise.resolve(),
      requestTaskRestart: () => Promise.resolve(),
      onTaskState: () => {},
      remoteTask: () => undefined,
      handedOver: () => undefined,
    },
  });
  const m = managed(l.validator, config(), "RUNNING");
  l.life.start(m);
  assertEquals(m.tasks.map((t) => t.taskId), [1]);
  await l.life.stopTasks(m);
});
