/**
 * The source driver's back-pressure: a poll may hand over more records than `maxInFlightRecords` (several tables'
 * pages at once); they must still be sent, and offsets must only follow acknowledged records. Exactly-once: records
 * and their offsets in one transaction per boundary, offsets reported only once committed.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { SourceRecord } from "../../../src/connect/record.ts";
import { Schema } from "../../../src/connect/schema.ts";
import { StringConverter } from "../../../src/connect/converters/string_converter.ts";
import type { SourceTask } from "../../../src/connect/task_api.ts";
import type {
  ProducedRecord,
  Producer,
  RecordAck,
  Transaction,
  TransactionalProducer,
} from "../../../src/kafka/mod.ts";
import { logger } from "../../../src/observability/log.ts";
import { MetricsRegistry } from "../../../src/observability/metrics.ts";
import { ErrorHandler } from "../../../src/runtime/errors/error_handler.ts";
import { SourceDriver } from "../../../src/runtime/source_task/source_driver.ts";
import type { OffsetUpdate } from "../../../src/runtime/offsets/types.ts";
import { SourceTransactions } from "../../../src/runtime/source_task/source_transactions.ts";

/** A producer that acknowledges each send after a short while, recording what it was given. */
class SlowAckProducer implements Producer {
  sent: ProducedRecord[][] = [];
  next = 0;
  async send(records: ProducedRecord[]): Promise<RecordAck[]> {
    this.sent.push(records);
    await new Promise((r) => setTimeout(r, 5));
    return records.map((r) => ({ topic: r.topic, partition: 0, offset: this.next++ }));
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** String converters, no transforms, failing error handling, no topic creation. */
function driverParts() {
  const metrics = new MetricsRegistry();
  const string = new StringConverter();
  return {
    converters: {
      key: string,
      value: string,
      header: string,
      classes: { key: "string", value: "string", header: "string" },
    },
    transforms: { apply: (r: SourceRecord) => r },
    errors: new ErrorHandler(
      { retryTimeoutMs: 0, retryDelayMaxMs: 0, toleranceAll: false, logEnable: false } as never,
      { logger: logger("test"), dlq: null, metrics, signal: new AbortController().signal, taskLabel: "t-0" },
    ),
    logger: logger("test"),
    metrics,
    ensureTopic: () => Promise.resolve(),
  };
}

/** A record of topic "t" with a string key and value, at source offset `{ at }` of one source partition. */
function stringRecord(key: string, value: string, at: string | number): SourceRecord {
  return new SourceRecord({
    topic: "t",
    keySchema: Schema.STRING_SCHEMA,
    key,
    valueSchema: Schema.STRING_SCHEMA,
    value,
    sourcePartition: PARTITION,
    sourceOffset: { at },
  });
}

/** The source partition of every record here (one object, as a task shares one per table). */
const PARTITION = { table: "incident" };

/**
 * A task handing out `polls`, one per poll; once all are handed out it stops the driver as soon as the producer
 * acknowledged every record. `onPoll` is told, before each poll, how many records were handed out so far.
 */
function scriptedTask(
  polls: SourceRecord[][],
  producer: SlowAckProducer,
  driver: () => SourceDriver,
  { onPoll, whenAcknowledged }: {
    onPoll?: (handedOut: number) => void;
    whenAcknowledged?: SourceTask["whenAcknowledged"];
  } = {},
): SourceTask {
  const expected = polls.flat().length;
  let handedOut = 0;
  return {
    start: () => Promise.resolve(),
    poll: () => {
      onPoll?.(handedOut);
      const poll = polls.shift();
      if (poll) {
        handedOut += poll.length;
        return Promise.resolve(poll);
      }
      // Everything polled: stop once every record is acknowledged.
      if (producer.next === expected) driver().stop();
      return new Promise((r) => setTimeout(() => r([]), 5));
    },
    ...(whenAcknowledged ? { whenAcknowledged } : {}),
    stop: () => Promise.resolve(),
  } as SourceTask;
}

Deno.test("source driver: a poll larger than maxInFlightRecords is still sent; offsets follow the acks", async () => {
  const pages = [3, 2].map((tables, page) =>
    Array.from({ length: tables * 40 }, (_, i) => stringRecord(`k${page}-${i}`, `v${i}`, `${page}-${i}`))
  );
  const expected = pages.flat().length;
  const producer = new SlowAckProducer();
  const committed: OffsetUpdate[][] = [];
  const driver: SourceDriver = new SourceDriver({
    task: scriptedTask(pages, producer, () => driver),
    producer,
    ...driverParts(),
    commitOffsets: (entries) => committed.push(entries),
    // Fewer than one poll's records: the first poll alone (120 records) exceeds it.
    maxInFlightRecords: 50,
  });
  await driver.run();
  assertEquals(producer.sent.flat().length, expected);
  assertEquals(committed.at(-1)?.at(-1)?.offset, { at: "1-79" });
});

Deno.test("source driver: records awaiting acks are bounded in bytes too; offsets follow the acks", async () => {
  // Ten polls of 4 records of 1000 bytes each; at most 5000 bytes in flight: never two polls' sends at once.
  const polls = Array.from(
    { length: 10 },
    (_, p) =>
      Array.from(
        { length: 4 },
        (_, i) => stringRecord(`k${p}-${i}`, "x".repeat(1000 - `k${p}-${i}`.length), `${p}-${i}`),
      ),
  );
  const expected = polls.flat().length;
  let mostUnacked = 0;
  const producer = new SlowAckProducer();
  const committed: OffsetUpdate[][] = [];
  const driver: SourceDriver = new SourceDriver({
    task: scriptedTask(polls, producer, () => driver, {
      // Records handed out and not yet acknowledged when the driver asks for more.
      onPoll: (handedOut) => mostUnacked = Math.max(mostUnacked, handedOut - producer.next),
    }),
    producer,
    ...driverParts(),
    commitOffsets: (entries) => committed.push(entries),
    // The count would let every poll go at once; the bytes let one poll's 4000 bytes wait for acks, not two.
    maxInFlightRecords: 1000,
    maxInFlightBytes: 5000,
  });
  await driver.run();
  assertEquals(producer.sent.flat().length, expected);
  assertEquals(mostUnacked, 4);
  assertEquals(committed.at(-1)?.at(-1)?.offset, { at: "9-3" });
});

Deno.test("source driver: polls converted while a send is in flight go out together in the next send, in order", async () => {
  // Twenty polls of 3 records, each handed over at once: the first send takes the first poll, the polls made
  // during its 5 ms join one group for the next send, and so on; whatever the grouping, order and acks hold.
  const polls = Array.from(
    { length: 20 },
    (_, p) => Array.from({ length: 3 }, (_, i) => stringRecord(`k${p}-${i}`, `v${p}-${i}`, `${p}-${i}`)),
  );
  const keys = polls.flat().map((r) => r.key);
  const acknowledged: string[] = [];
  const producer = new SlowAckProducer();
  const committed: OffsetUpdate[][] = [];
  const driver: SourceDriver = new SourceDriver({
    task: scriptedTask(polls, producer, () => driver, {
      whenAcknowledged: (r: SourceRecord) => () => acknowledged.push(r.key as string),
    }),
    producer,
    ...driverParts(),
    commitOffsets: (entries) => committed.push(entries),
  });
  await driver.run();
  const decoder = new TextDecoder();
  assertEquals(producer.sent.flat().map((r) => decoder.decode(r.key!)), keys);
  assertEquals(producer.sent[0].length, 3, "the first poll goes alone, at once");
  assert(producer.sent.length < 20, `${producer.sent.length} sends for 20 polls`);
  assertEquals(acknowledged, keys);
  assertEquals(committed.at(-1)?.at(-1)?.offset, { at: "19-2" });
});

/** Records with values `v0`… and the given bad ones; a transform that throws on `bad-transform`, a value converter that throws on `bad-convert`. */
function toleranceCase(values: string[], toleranceAll: boolean) {
  const records = values.map((value, i) => stringRecord(`k${i}`, value, i));
  const producer = new SlowAckProducer();
  const committed: OffsetUpdate[][] = [];
  const parts = driverParts();
  const string = new StringConverter();
  const failing = Object.assign(Object.create(string), {
    fromConnectData: (topic: string, schema: Schema, value: unknown) => {
      if (value === "bad-convert") throw new Error("cannot convert");
      return string.fromConnectData(topic, schema, value);
    },
  });
  let polled = false;
  const task: SourceTask = {
    start: () => Promise.resolve(),
    poll: () => {
      if (polled) {
        if (producer.sent.flat().length === values.filter((v) => !v.startsWith("bad")).length) driver.stop();
        return new Promise((r) => setTimeout(() => r([]), 5));
      }
      polled = true;
      return Promise.resolve(records);
    },
    stop: () => Promise.resolve(),
  } as SourceTask;
  const driver: SourceDriver = new SourceDriver({
    task,
    producer,
    ...parts,
    converters: { ...parts.converters, value: failing },
    transforms: {
      apply: (r: SourceRecord) => {
        if (r.value === "bad-transform") throw new Error("cannot transform");
        return r;
      },
    },
    errors: new ErrorHandler(
      { retryTimeoutMs: 0, retryDelayMaxMs: 0, toleranceAll, logEnable: false } as never,
      {
        logger: logger("test"),
        dlq: null,
        metrics: parts.metrics,
        signal: new AbortController().signal,
        taskLabel: "t-0",
      },
    ),
    commitOffsets: (entries) => committed.push(entries),
  });
  return { driver, producer, committed };
}

Deno.test("source driver: tolerated transform and conversion failures drop those records only, in order", async () => {
  const values = ["v0", "bad-transform", "v2", "bad-convert", "v4", "v5"];
  const { driver, producer, committed } = toleranceCase(values, true);
  await driver.run();
  const decoder = new TextDecoder();
  assertEquals(producer.sent.flat().map((r) => decoder.decode(r.value!)), ["v0", "v2", "v4", "v5"]);
  assertEquals(committed.at(-1)?.at(-1)?.offset, { at: 5 });
});

Deno.test("source driver: an intolerable conversion failure fails the task; nothing after it is sent", async () => {
  const { driver, producer } = toleranceCase(["v0", "bad-convert", "v2"], false);
  let failed: unknown = null;
  await driver.run().catch((e) => failed = e);
  assertEquals(failed !== null, true);
  assertEquals(producer.sent.flat().length, 0);
});

/**
 * A transactional producer that logs what reaches Kafka: each transaction's topics in order and how it ended.
 * `failCommit`: the next commit rejects (as a fenced producer's does).
 */
class LoggingTransactionalProducer implements TransactionalProducer {
  readonly transactionalId = "g-c-0";
  log: string[] = [];
  failCommit = false;
  sends = 0;
  begin(): Promise<Transaction> {
    this.log.push("begin");
    return Promise.resolve({
      send: (records: ProducedRecord[]) => {
        this.sends++;
        this.log.push(`send ${[...new Set(records.map((r) => r.topic))].join(",")} ${records.length}`);
        return Promise.resolve(records.map((r, i) => ({ topic: r.topic, partition: 0, offset: i })));
      },
      commit: () => {
        if (this.failCommit) return Promise.reject(new Error("fenced"));
        this.log.push("commit");
        return Promise.resolve();
      },
      abort: () => {
        this.log.push("abort");
        return Promise.resolve();
      },
    });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A task handing out `polls`, then stopping the driver after `idlePolls` empty polls. */
function pollsThenStop(
  polls: SourceRecord[][],
  driver: () => SourceDriver,
  idlePolls = 1,
  callbacks: Pick<SourceTask, "whenAcknowledged" | "whenCommitted"> = {},
): SourceTask {
  let idle = 0;
  return {
    ...callbacks,
    start: () => Promise.resolve(),
    poll: () => {
      const poll = polls.shift();
      if (poll) return Promise.resolve(poll);
      if (++idle >= idlePolls) driver().stop();
      return new Promise((r) => setTimeout(() => r([]), 5));
    },
    stop: () => Promise.resolve(),
  } as SourceTask;
}

function exactlyOnceDriver(
  polls: SourceRecord[][],
  producer: LoggingTransactionalProducer,
  boundary: "poll" | "interval",
  reported: { entries: OffsetUpdate[]; committed?: boolean }[],
  callbacks: Pick<SourceTask, "whenAcknowledged" | "whenCommitted"> = {},
  /** The task (default: `polls`, then a stop): given the driver, for a task that acts on it. */
  taskOf: (driver: () => SourceDriver) => SourceTask = (d) => pollsThenStop(polls, d, 1, callbacks),
): SourceDriver {
  const driver: SourceDriver = new SourceDriver({
    task: taskOf(() => driver),
    producer: new SlowAckProducer(),
    ...driverParts(),
    commitOffsets: (entries, committed) => reported.push({ entries, committed }),
    transactions: new SourceTransactions({
      producer,
      offsetsTopic: "offsets",
      connector: "c",
      boundary,
      intervalMs: 60_000,
    }),
  });
  return driver;
}

Deno.test("source driver, exactly-once, poll boundary: each send's records and their offsets commit in one transaction, one request", async () => {
  const producer = new LoggingTransactionalProducer();
  const reported: { entries: OffsetUpdate[]; committed?: boolean }[] = [];
  const polls = [[stringRecord("a", "1", 1), stringRecord("b", "2", 2)], [stringRecord("c", "3", 3)]];
  await exactlyOnceDriver(polls, producer, "poll", reported).run();
  // The offsets go in the same send as their records, first: in the first request kafkajs adds their partition to
  // the transaction together with the records' (one AddPartitionsToTxn per transaction).
  assertEquals(producer.log, ["begin", "send offsets,t 3", "commit", "begin", "send offsets,t 2", "commit"]);
  // Reported to the main thread only once committed, marked so (the store must not write them again).
  assertEquals(reported, [
    { entries: [{ partition: PARTITION, offset: { at: 2 } }], committed: true },
    { entries: [{ partition: PARTITION, offset: { at: 3 } }], committed: true },
  ]);
});

Deno.test("source driver, exactly-once, interval boundary: polls share the open transaction, committed on stop", async () => {
  const producer = new LoggingTransactionalProducer();
  const reported: { entries: OffsetUpdate[]; committed?: boolean }[] = [];
  const polls = [[stringRecord("a", "1", 1)], [stringRecord("b", "2", 2)], [stringRecord("c", "3", 3)]];
  await exactlyOnceDriver(polls, producer, "interval", reported).run();
  assertEquals(producer.log.filter((l) => l === "begin" || l === "commit"), ["begin", "commit"]);
  assertEquals(producer.log.at(-2), "send offsets 1");
  assertEquals(reported, [{ entries: [{ partition: PARTITION, offset: { at: 3 } }], committed: true }]);
});

Deno.test("source driver, exactly-once, interval boundary: pausing commits the open transaction (left open, it would outlive transaction.timeout.ms)", async () => {
  const producer = new LoggingTransactionalProducer();
  const reported: { entries: OffsetUpdate[]; committed?: boolean }[] = [];
  const polls = [[stringRecord("a", "1", 1)], [stringRecord("b", "2", 2)]];
  // Once its polls are handed out, the task pauses the driver (as a REST pause does) instead of stopping it.
  const driver = exactlyOnceDriver(polls, producer, "interval", reported, {}, (driver) => ({
    start: () => Promise.resolve(),
    poll: () => {
      const poll = polls.shift();
      if (poll) return Promise.resolve(poll);
      driver().pause();
      return new Promise((r) => setTimeout(() => r([]), 5));
    },
    stop: () => Promise.resolve(),
  } as SourceTask));
  const running = driver.run();
  const deadline = Date.now() + 5_000;
  while (!producer.log.includes("commit") && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
  // Committed while paused, long before the interval: both polls' records and their offsets.
  assertEquals(producer.log.filter((l) => l === "begin" || l === "commit"), ["begin", "commit"]);
  assertEquals(reported, [{ entries: [{ partition: PARTITION, offset: { at: 2 } }], committed: true }]);
  driver.stop();
  await running;
});

Deno.test("source driver, exactly-once: a failed commit fails the task and reports no offset of that transaction", async () => {
  const producer = new LoggingTransactionalProducer();
  producer.failCommit = true;
  const reported: { entries: OffsetUpdate[]; committed?: boolean }[] = [];
  const polls = [[stringRecord("a", "1", 1)], [stringRecord("b", "2", 2)]];
  const error = await exactlyOnceDriver(polls, producer, "poll", reported).run().then(() => null, (e) => e);
  assert(
    error instanceof Error && error.message.includes("transaction of g-c-0 failed: fenced"),
    String(error),
  );
  assertEquals(reported, []);
  assertEquals(producer.sends, 1, "the first transaction's records and offsets, nothing after");
});

Deno.test("source driver, exactly-once: whenAcknowledged as a record joins its transaction, whenCommitted once it committed", async () => {
  const producer = new LoggingTransactionalProducer();
  const calls: string[] = [];
  const polls = [[stringRecord("a", "1", 1), stringRecord("b", "2", 2)], [stringRecord("c", "3", 3)]];
  const commits = () => producer.log.filter((l) => l === "commit").length;
  await exactlyOnceDriver(polls, producer, "poll", [], {
    whenAcknowledged: (r) => () => calls.push(`joined ${r.key}, ${commits()} commits`),
    whenCommitted: (r) => () => calls.push(`committed ${r.key}, ${commits()} commits`),
  }).run();
  assertEquals(calls, [
    "joined a, 0 commits",
    "joined b, 0 commits",
    "committed a, 1 commits",
    "committed b, 1 commits",
    "joined c, 1 commits",
    "committed c, 2 commits",
  ]);
});

Deno.test("source driver, exactly-once: a transaction that fails calls no whenCommitted of its records", async () => {
  const producer = new LoggingTransactionalProducer();
  producer.failCommit = true;
  const calls: string[] = [];
  const polls = [[stringRecord("a", "1", 1)], [stringRecord("b", "2", 2)]];
  const error = await exactlyOnceDriver(polls, producer, "poll", [], {
    whenAcknowledged: (r) => () => calls.push(`joined ${r.key}`),
    whenCommitted: (r) => () => calls.push(`committed ${r.key}`),
  }).run().then(() => null, (e) => e);
  assert(error instanceof Error, String(error));
  assertEquals(calls, ["joined a"]);
});

Deno.test("source driver, at-least-once: whenCommitted is called with the ack, after whenAcknowledged", async () => {
  const polls = [[stringRecord("a", "1", 1), stringRecord("b", "2", 2)]];
  const calls: string[] = [];
  const producer = new SlowAckProducer();
  const driver: SourceDriver = new SourceDriver({
    task: pollsThenStop(polls, () => driver, 3, {
      whenAcknowledged: (r) => () => calls.push(`acked ${r.key} (${producer.next} acked)`),
      whenCommitted: (r) => () => calls.push(`committed ${r.key} (${producer.next} acked)`),
    }),
    producer,
    ...driverParts(),
    commitOffsets: () => {},
  });
  await driver.run();
  assertEquals(calls, [
    "acked a (2 acked)",
    "committed a (2 acked)",
    "acked b (2 acked)",
    "committed b (2 acked)",
  ]);
});

Deno.test("source driver: polls that always find records at hand still let timers and Kafka's responses in", async () => {
  // A task whose every poll resolves at once (a page's rows at hand): without turns of the event loop, the driver
  // would hand out every record before the stop timer below (or any Kafka response) got a turn.
  const total = 200_000;
  let handedOut = 0;
  const producer = new SlowAckProducer();
  const driver: SourceDriver = new SourceDriver({
    task: {
      start: () => Promise.resolve(),
      poll: () => {
        if (handedOut >= total) return new Promise((r) => setTimeout(() => r([]), 5));
        return Promise.resolve([stringRecord(`k${handedOut}`, "v", handedOut++)]);
      },
      stop: () => Promise.resolve(),
    } as SourceTask,
    producer,
    ...driverParts(),
    commitOffsets: () => {},
    maxInFlightRecords: total * 2,
  });
  setTimeout(() => driver.stop(), 1);
  await driver.run();
  assert(handedOut < total, `the stop came only after all ${handedOut} records were polled`);
});
