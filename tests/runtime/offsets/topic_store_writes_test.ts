/**
 * The topic store's write path against an in-memory OffsetLog: coalescing, failure and retry. (Reading a real
 * topic is covered against the Kafka mock in topic_store_test.ts.)
 */
import { assert, assertEquals, assertRejects, assertThrows } from "../../support/assert.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import type { OffsetLog, OffsetLogRecord, OffsetLogWrite } from "../../../src/runtime/offsets/offset_log.ts";
import { TopicOffsetStore } from "../../../src/runtime/offsets/topic_store.ts";
import { InvalidOffsetError } from "../../../src/runtime/offsets/validation.ts";

setLogLevel("silent");

class MemoryLog implements OffsetLog {
  readonly topic = "memory-offsets";
  readonly appends: Array<Array<{ key: string; value: string | null }>> = [];
  failNext = false;
  closed = false;

  start(): Promise<void> {
    return Promise.resolve();
  }

  readToEnd(): Promise<OffsetLogRecord[]> {
    return Promise.resolve([]);
  }

  append(records: readonly OffsetLogWrite[]): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new Error("broker unavailable"));
    }
    const decode = (b: Uint8Array | null) => b === null ? null : new TextDecoder().decode(b);
    this.appends.push(records.map((r) => ({ key: decode(r.key)!, value: decode(r.value) })));
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

async function started(log: MemoryLog): Promise<TopicOffsetStore> {
  const store = new TopicOffsetStore({ log, flushDelayMs: 60_000 });
  await store.start();
  return store;
}

Deno.test("topic store writes: only the latest value of each key since the last write is appended", async () => {
  const log = new MemoryLog();
  const store = await started(log);
  for (let n = 1; n <= 5; n++) store.set("jira", [{ partition: { t: "a" }, offset: { n } }]);
  store.set("jira", [{ partition: { t: "b" }, offset: { n: 1 } }]);
  store.set("jira", [{ partition: { t: "b" }, offset: null }]);
  await store.flush();
  await store.flush(); // nothing new: no append
  assertEquals(log.appends, [[
    { key: `["jira",{"t":"a"}]`, value: `{"n":5}` },
    { key: `["jira",{"t":"b"}]`, value: null },
  ]]);
  await store.close();
  assert(log.closed);
});

Deno.test("topic store writes: one partition always uses the key spelling it was first written with", async () => {
  const log = new MemoryLog();
  const store = await started(log);
  store.set("jira", [{ partition: { a: 1, b: 2 }, offset: { n: 1 } }]);
  await store.flush();
  store.set("jira", [{ partition: { b: 2, a: 1 }, offset: null }]);
  await store.flush();
  store.set("jira", [{ partition: { b: 2, a: 1 }, offset: { n: 3 } }]);
  await store.close();
  assertEquals(log.appends.flat().map((r) => r.key), Array(3).fill(`["jira",{"a":1,"b":2}]`));
});

Deno.test("topic store writes: a failed append rejects flush() and the next flush sends the latest values", async () => {
  const log = new MemoryLog();
  const store = await started(log);
  store.set("jira", [{ partition: { t: "a" }, offset: { n: 1 } }, {
    partition: { t: "b" },
    offset: { n: 1 },
  }]);
  log.failNext = true;
  await assertRejects(() => store.flush(), Error, /broker unavailable/);
  store.set("jira", [{ partition: { t: "b" }, offset: { n: 2 } }]);
  await store.flush();
  assertEquals(log.appends.length, 1);
  assertEquals(log.appends[0].sort((x, y) => x.key.localeCompare(y.key)), [
    { key: `["jira",{"t":"a"}]`, value: `{"n":1}` },
    { key: `["jira",{"t":"b"}]`, value: `{"n":2}` },
  ]);
  await store.close();
});

Deno.test("topic store writes: invalid entries are refused whole and nothing is queued", async () => {
  const log = new MemoryLog();
  const store = await started(log);
  assertThrows(
    () =>
      store.set("jira", [
        { partition: { t: "a" }, offset: { n: 1 } },
        { partition: { t: ["x"] as never }, offset: { n: 1 } },
      ]),
    InvalidOffsetError,
    /source partition .* field "t" contains an array/,
  );
  assertEquals(store.getAll("jira"), []);
  await store.close();
  assertEquals(log.appends, []);
});
