/** At start the config file's connectors merge with the changes stored over REST; deletions are remembered. */
import { assertEquals } from "../../support/assert.ts";
import { configHash, ConnectorStateStore } from "../../../src/runtime/herder/connector_state_store.ts";
import { StoredConnectors } from "../../../src/runtime/herder/stored_connectors.ts";

const fileA = { "connector.class": "TableSourceConnector", "topic.prefix": "a." };
const fileB = { "connector.class": "TableSinkConnector", topics: "b" };

/** Runs `fn` with a state store in a fresh directory holding `entries`; the directory is removed after. */
async function withStore(
  entries: Record<string, Parameters<ConnectorStateStore["put"]>[1]>,
  fn: (store: ConnectorStateStore, path: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "stored-connectors-" });
  try {
    const store = new ConnectorStateStore(`${dir}/connectors.json`);
    for (const [name, entry] of Object.entries(entries)) await store.put(name, entry);
    await fn(store, `${dir}/connectors.json`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("standalone: a stored change applies while the file entry is unchanged, else the file wins", async () => {
  const hashA = await configHash(fileA);
  await withStore({
    a: { config: { ...fileA, "tasks.max": "2" }, target: "PAUSED", fileHash: hashA },
    b: { config: { ...fileB, topics: "old" }, target: "STOPPED", fileHash: "an-older-file-entry" },
    gone: { config: fileB, target: "RUNNING", fileHash: "no-longer-in-the-file" },
    rest: { config: fileB, target: "STOPPED" },
  }, async (store, path) => {
    const starting = await new StoredConnectors(store, false).atStart([
      { name: "a", config: fileA },
      { name: "b", config: fileB },
    ]);
    assertEquals(starting, [
      { name: "a", config: { ...fileA, "tasks.max": "2" }, target: "PAUSED", fileHash: hashA, seed: false },
      { name: "b", config: fileB, target: "RUNNING", fileHash: await configHash(fileB), seed: false },
      { name: "rest", config: fileB, target: "STOPPED", fileHash: undefined, seed: false },
    ]);
    // The stale change of b is dropped from the file too.
    const reread = new ConnectorStateStore(path);
    await reread.load();
    assertEquals(reread.names().sort(), ["a", "gone", "rest"]);
  });
});

Deno.test("group mode: a file entry the shared config lacks is seeded; nothing stored is dropped", async () => {
  await withStore({
    b: { config: { ...fileB, topics: "old" }, target: "STOPPED", fileHash: "an-older-file-entry" },
    other: { config: fileA, target: "RUNNING", fileHash: "another-members-file" },
  }, async (store) => {
    const starting = await new StoredConnectors(store, true).atStart([
      { name: "a", config: fileA },
      { name: "b", config: fileB },
    ]);
    assertEquals(starting, [
      { name: "a", config: fileA, target: "RUNNING", fileHash: await configHash(fileA), seed: true },
      { name: "b", config: fileB, target: "RUNNING", fileHash: await configHash(fileB), seed: true },
      { name: "other", config: fileA, target: "RUNNING", fileHash: "another-members-file", seed: false },
    ]);
    assertEquals(store.names().sort(), ["b", "other"]);
  });
});

Deno.test("a deleted file connector stays deleted while its entry is unchanged; one created over REST is removed", async () => {
  const hashA = await configHash(fileA);
  await withStore({}, async (store) => {
    const stored = new StoredConnectors(store, false);
    await stored.save({ name: "a", config: fileA, target: "RUNNING", fileHash: hashA });
    await stored.save({ name: "rest", config: fileB, target: "RUNNING" });
    await stored.forget({ name: "a", config: fileA, target: "RUNNING", fileHash: hashA });
    await stored.forget({ name: "rest", config: fileB, target: "RUNNING" });
    assertEquals(store.names(), ["a"]);
    assertEquals(store.get("a")?.deleted, true);
    assertEquals(await stored.atStart([{ name: "a", config: fileA }]), []);
    // An edited file entry brings it back.
    const edited = { ...fileA, "topic.prefix": "edited." };
    assertEquals((await stored.atStart([{ name: "a", config: edited }])).map((c) => c.name), ["a"]);
  });
});
