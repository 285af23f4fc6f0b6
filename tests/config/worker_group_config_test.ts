import { assert, assertEquals } from "../support/assert.ts";
import { errorLines } from "../../src/config/analyze.ts";
import { analyzeWorker, taskWorkerStrings, workerStrings } from "../../src/config/worker_config.ts";

Deno.test("worker group keys: Connect's defaults; unset group.id needs none of the shared topics", () => {
  const analysis = analyzeWorker({});
  assertEquals(errorLines(analysis), []);
  assertEquals(analysis.values["group.id"], null);
  assertEquals(analysis.values["heartbeat.interval.ms"], 3000);
  assertEquals(analysis.values["session.timeout.ms"], 10000);
  assertEquals(analysis.values["rebalance.timeout.ms"], 60000);
  assertEquals(errorLines(analyzeWorker({ "group.id": "" })), [], "a blank group.id is standalone");
});

Deno.test("group mode requires the offsets, config and status topics, three different ones", () => {
  const missing = errorLines(analyzeWorker({ "group.id": "g" })).join("\n");
  for (const key of ["offset.storage.topic", "config.storage.topic", "status.storage.topic"]) {
    assert(missing.includes(`"${key}"`), missing);
  }
  const same = errorLines(analyzeWorker({
    "group.id": "g",
    "offset.storage.topic": "t",
    "config.storage.topic": "t",
    "status.storage.topic": "s",
  }));
  assert(same.some((l) => l.includes("three different topics")), same.join("\n"));
  const ok = analyzeWorker({
    "group.id": "g",
    "offset.storage.topic": "o",
    "config.storage.topic": "c",
    "status.storage.topic": "s",
  });
  assertEquals(errorLines(ok), []);
});

Deno.test("heartbeat.interval.ms must stay below session.timeout.ms", () => {
  const lines = errorLines(analyzeWorker({
    "group.id": "g",
    "offset.storage.topic": "o",
    "config.storage.topic": "c",
    "status.storage.topic": "s",
    "heartbeat.interval.ms": "10000",
  }));
  assert(
    lines.some((l) => l.includes("heartbeat.interval.ms") && l.includes("session.timeout.ms")),
    lines.join("\n"),
  );
});

Deno.test("a task's Kafka clients never see the worker group's keys", () => {
  const analysis = analyzeWorker({ "group.id": "g", "session.timeout.ms": "7000" });
  assertEquals(workerStrings(analysis)["session.timeout.ms"], "7000");
  const task = taskWorkerStrings(analysis);
  for (const key of ["group.id", "session.timeout.ms", "heartbeat.interval.ms", "rebalance.timeout.ms"]) {
    assertEquals(task[key], undefined, key);
  }
});
