/** connector_state_store.ts: a change whose file cannot be written is undone, so a later write never carries it. */
import { assertEquals, assertRejects } from "../../support/assert.ts";
import { ConnectorStateStore } from "../../../src/runtime/herder/connector_state_store.ts";

Deno.test("a put or remove that cannot be written leaves the store as it was", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/state/connectors.json`;
    const store = new ConnectorStateStore(path);
    await store.load();
    await store.put("kept", { config: { name: "kept" }, target: "RUNNING" });
    await Deno.remove(`${dir}/state`, { recursive: true });
    await Deno.writeTextFile(`${dir}/state`, "a file where the directory should be");
    await assertRejects(() => store.put("lost", { config: { name: "lost" }, target: "RUNNING" }));
    await assertRejects(() => store.put("kept", { config: { name: "kept" }, target: "PAUSED" }));
    await assertRejects(() => store.remove("kept"));
    assertEquals(store.names(), ["kept"]);
    assertEquals(store.get("kept")?.target, "RUNNING");
    // Once the file can be written again, what it holds is only what succeeded.
    await Deno.remove(`${dir}/state`);
    await store.put("next", { config: { name: "next" }, target: "STOPPED" });
    const reread = new ConnectorStateStore(path);
    await reread.load();
    assertEquals(reread.names().sort(), ["kept", "next"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("task count records of exactly-once connectors survive a restart; files without them still load", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/connectors.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify({ format: "tablesync.connectors", version: 1, connectors: {} }),
    );
    const store = new ConnectorStateStore(path);
    await store.load();
    assertEquals(store.taskCountRecord("src"), undefined);
    await store.putTaskCountRecord("src", { taskCount: 2, configHash: "h1" });
    await store.put("src", { config: { name: "src" }, target: "RUNNING" });
    const reread = new ConnectorStateStore(path);
    await reread.load();
    assertEquals(reread.taskCountRecord("src"), { taskCount: 2, configHash: "h1" });
    assertEquals(reread.names(), ["src"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
