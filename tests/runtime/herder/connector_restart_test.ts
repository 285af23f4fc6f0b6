/** KIP-745: the status answered to a restart request shows as RESTARTING exactly what the request restarts. */
import { assertEquals } from "../../support/assert.ts";
import { showRestarting } from "../../../src/runtime/herder/connector_restart.ts";
import type { ConnectorState, ManagedConnector } from "../../../src/runtime/herder/managed.ts";
import type { TargetState } from "../../../src/runtime/herder/connector_state_store.ts";

function connector(state: ConnectorState, target: TargetState = "RUNNING"): ManagedConnector {
  return {
    name: "c",
    config: {},
    plugin: undefined,
    target,
    state,
    tasks: [],
    taskConfigs: [],
    activeTopics: new Set(),
  };
}

function status(connectorState: string, taskStates: string[]) {
  return {
    name: "c",
    connector: { state: connectorState, worker_id: "w:8083" },
    tasks: taskStates.map((state, id) => ({ id, state, worker_id: "w:8083" })),
    type: "source" as const,
  };
}

function shown(m: ManagedConnector, includeTasks: boolean, onlyFailed: boolean): string[] {
  const s = showRestarting(status(m.state, ["RUNNING", "FAILED"]), m, { includeTasks, onlyFailed });
  return [String(s.connector.state), ...s.tasks.map((t) => String(t.state))];
}

Deno.test("a restart of everything shows the connector and, with includeTasks, every task restarting", () => {
  assertEquals(shown(connector("RUNNING"), false, false), ["RESTARTING", "RUNNING", "FAILED"]);
  assertEquals(shown(connector("RUNNING"), true, false), ["RESTARTING", "RESTARTING", "RESTARTING"]);
});

Deno.test("onlyFailed restarts the connector when it failed, and the failed tasks", () => {
  assertEquals(shown(connector("RUNNING"), true, true), ["RUNNING", "RUNNING", "RESTARTING"]);
  assertEquals(shown(connector("FAILED"), true, true), ["RESTARTING", "RESTARTING", "RESTARTING"]);
  assertEquals(shown(connector("RUNNING"), false, true), ["RUNNING", "RUNNING", "FAILED"]);
});

Deno.test("a STOPPED connector restarts nothing", () => {
  assertEquals(shown(connector("STOPPED", "STOPPED"), true, false), ["STOPPED", "RUNNING", "FAILED"]);
});
