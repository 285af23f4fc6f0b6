import { assertEquals } from "../support/assert.ts";
import { RecordQueue } from "../../src/source/record_queue.ts";
import { SourceRecord } from "../../src/connect/record.ts";

function batch(label: string, n: number): SourceRecord[] {
  return Array.from(
    { length: n },
    (_, i) => new SourceRecord({ topic: label, key: `${label}${i}`, value: null }),
  );
}

Deno.test("record queue: a drain takes the oldest batches up to its record limit; the rest and their pollers wait", async () => {
  const queue = new RecordQueue({ maxRecordsPerDrain: 5 });
  const taken: string[] = [];
  const put = (label: string, n: number) => queue.put(batch(label, n)).then(() => taken.push(label));
  const puts = [put("a", 3), put("b", 3), put("c", 1)];

  const first = queue.drain();
  await Promise.resolve();
  assertEquals(first.map((r) => r.topic), ["a", "a", "a"], "b would bring the drain over 5 records");
  assertEquals(taken, ["a"], "only a's poller is released");
  assertEquals(queue.isEmpty, false);

  const second = queue.drain();
  await Promise.all(puts);
  assertEquals(second.map((r) => r.topic), ["b", "b", "b", "c"]);
  assertEquals(taken, ["a", "b", "c"]);
  assertEquals(queue.isEmpty, true);
});

Deno.test("record queue: a batch larger than the limit is still taken whole, alone", () => {
  const queue = new RecordQueue({ maxRecordsPerDrain: 2 });
  queue.put(batch("big", 4));
  queue.put(batch("next", 1));
  assertEquals(queue.drain().length, 4);
  assertEquals(queue.drain().map((r) => r.topic), ["next"]);
});

Deno.test("record queue: by default one drain takes up to 5000 records", () => {
  const queue = new RecordQueue();
  queue.put(batch("a", 2500));
  queue.put(batch("b", 2500));
  queue.put(batch("c", 1));
  assertEquals(queue.drain().length, 5000);
  assertEquals(queue.drain().length, 1);
});

Deno.test("record queue: discard releases the waiting pollers, and a batch put after it resolves at once", async () => {
  const queue = new RecordQueue();
  const before = queue.put(batch("before", 2));
  queue.discard();
  await before;
  // Resolves without a drain: a poller handling a page read before the stop must not wait for a taker.
  await queue.put(batch("after", 2));
  assertEquals(queue.isEmpty, true, "nothing is queued after the stop");
  assertEquals(queue.drain(), []);
});
