/**
 * Kafka Connect's worker keys, from Connect's own ConfigDefs (DistributedConfig, StandaloneConfig), against
 * src/config/connect_worker_keys.ts: the list is exactly Connect's, and a worker section holding every one of them
 * analyses without an unknown-key warning or error (a Connect worker's file moves over unreported).
 */
import { assertEquals } from "../support/assert.ts";
import { CONNECT_WORKER_KEYS } from "../../src/config/connect_worker_keys.ts";
import { analyzeWorker } from "../../src/config/worker_config.ts";
import { startConnectHarness } from "./connect_harness.ts";

Deno.test("the Connect worker key list is Connect's own, and every key passes the worker analysis", async () => {
  await using connect = await startConnectHarness();
  const { keys } = await connect.request({ op: "workerKeys" });
  assertEquals([...CONNECT_WORKER_KEYS].sort(), keys);
  const analysis = analyzeWorker(Object.fromEntries(keys.map((k: string) => [k, "x"])));
  const unknown = (messages: Map<string, string[]>) =>
    [...messages].filter(([, list]) => list.some((m) => m.startsWith("Unknown property")));
  assertEquals(unknown(analysis.errors), []);
  assertEquals(unknown(analysis.warnings), []);
});
