/**
 * A table's pass record (src/source/reconcile/pass_record.ts): when the next pass is due on a task that starts,
 * the record's encoding, and the one read of the records of every table in a state topic.
 */
import { assertEquals, assertRejects } from "../../support/assert.ts";
import {
  decodePassRecord,
  dueInMs,
  encodePassRecord,
  type PassRecord,
  passRecordKey,
  PassRecords,
} from "../../../src/source/reconcile/pass_record.ts";
import type { StateTopic, StateTopicEntry } from "../../../src/connect/state_topic.ts";
import { sysIdOfKey } from "../../../src/source/reconcile/state_entry.ts";

const HOUR = 3_600_000;
const now = Date.parse("2026-11-29T12:00:00.000Z");
const finished: PassRecord = {
  running_since: null,
  verified_through: "2026-11-29T11:00:00.000Z",
  last_pass: {
    ended_at: "2026-11-29T11:00:09.000Z",
    rows_compared: 801,
    repairs: { "silent-update": 1, "rolled-back": 0, missing: 1, deleted: 1 },
  },
};

Deno.test("a pass cut short is due at once; a finished one's successor one interval after it began", () => {
  assertEquals(dueInMs(null, HOUR, now), null, "no record: as before, one interval after the start");
  assertEquals(dueInMs({ ...finished, running_since: "2026-11-29T11:59:00.000Z" }, 2 * HOUR, now), 0);
  assertEquals(dueInMs({ ...finished, running_since: "2026-11-29T11:59:00.000Z" }, 0, now), 0);
  assertEquals(dueInMs(finished, 2 * HOUR, now), HOUR, "began an hour ago, every two hours");
  assertEquals(dueInMs(finished, HOUR / 2, now), 0, "overdue");
  assertEquals(dueInMs(finished, 0, now), null, "on demand only");
  assertEquals(dueInMs({ running_since: null, verified_through: null, last_pass: null }, HOUR, now), null);
});

Deno.test("a pass record reads back as written; anything else is no record", () => {
  assertEquals(decodePassRecord(encodePassRecord(finished)), finished);
  const running = { running_since: "2026-11-29T11:59:00.000Z", verified_through: null, last_pass: null };
  assertEquals(decodePassRecord(encodePassRecord(running)), running);
  for (
    const bad of [
      "{",
      "null",
      `{"u":"2026-11-29 11:00:00","m":"3","d":"ab"}`,
      `{"running_since":"yesterday","verified_through":null,"last_pass":null}`,
      `{"running_since":null,"verified_through":null,"last_pass":{"ended_at":"2026-11-29T11:00:09Z"}}`,
    ]
  ) assertEquals(decodePassRecord(bad), null, bad);
  assertEquals(sysIdOfKey("src/t", passRecordKey("src/t"))?.includes("|"), true, "never a sys id");
});

/** The entries of a state topic in memory, in the order written; counts its partition reads. */
class MemoryStateTopic implements StateTopic {
  readonly entries: StateTopicEntry[] = [];
  reads = 0;
  fail = false;
  write(entries: readonly StateTopicEntry[]): void {
    this.entries.push(...entries);
  }
  backlog(): number {
    return 0;
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
  readPartition(partition: number, visit: (key: string, value: string | null) => void): Promise<void> {
    this.reads++;
    if (this.fail) return Promise.reject(new Error("partition unreadable"));
    for (const e of this.entries) if (e.partition === partition) visit(e.key, e.value);
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

Deno.test("the pass records of a state topic are read once for all its tables, the latest of each", async () => {
  const topic = new MemoryStateTopic();
  const writer = new PassRecords(topic);
  writer.write("src/a", { ...finished, running_since: "2026-11-29T11:00:00.000Z" });
  writer.write("src/a", finished);
  writer.write("src/b", {
    running_since: "2026-11-29T11:59:00.000Z",
    verified_through: null,
    last_pass: null,
  });
  topic.write([
    { partition: 0, key: "src/a|0abc", value: `{"u":"x","m":"1","d":"ff"}` },
    { partition: 0, key: passRecordKey("src/c"), value: encodePassRecord(finished) },
    { partition: 0, key: passRecordKey("src/c"), value: null },
    { partition: 1, key: passRecordKey("src/d"), value: encodePassRecord(finished) },
  ]);
  assertEquals(topic.entries.filter((e) => e.key === passRecordKey("src/a"))[0].partition, 0);
  const reader = new PassRecords(topic);
  assertEquals(await reader.get("src/a"), finished);
  assertEquals((await reader.get("src/b"))?.running_since, "2026-11-29T11:59:00.000Z");
  assertEquals(await reader.get("src/c"), null, "deleted");
  assertEquals(await reader.get("src/d"), null, "only partition 0 holds records");
  assertEquals(await reader.get("src/none"), null);
  assertEquals(topic.reads, 1);

  const unreadable = new MemoryStateTopic();
  unreadable.fail = true;
  await assertRejects(() => new PassRecords(unreadable).get("src/a"), Error, "partition unreadable");
});
