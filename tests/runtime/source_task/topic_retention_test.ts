/**
 * Retention traps: which topic configs delete records by their (row) timestamps, and when a record about to be
 * written is older than its topic keeps. The configs come from a function, as DescribeConfigs would answer.
 */
import { waitFor } from "../../support/wait.ts";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { logger, setLogLevel, setLogSink } from "../../../src/observability/log.ts";
import { timeRetentionOf, TopicRetention } from "../../../src/runtime/source_task/topic_retention.ts";

const logged: string[] = [];
setLogSink((line) => logged.push(line));
setLogLevel("info");

Deno.test("time retention: delete policies with a retention.ms, unless records are stamped on append", () => {
  assertEquals(timeRetentionOf({ "cleanup.policy": "delete", "retention.ms": "60000" }), 60000);
  assertEquals(
    timeRetentionOf({ "cleanup.policy": "compact,delete", "retention.ms": "604800000" }),
    604800000,
  );
  assertEquals(timeRetentionOf({ "cleanup.policy": "compact", "retention.ms": "60000" }), null);
  assertEquals(timeRetentionOf({ "cleanup.policy": "delete", "retention.ms": "-1" }), null);
  assertEquals(
    timeRetentionOf({
      "cleanup.policy": "delete",
      "retention.ms": "60000",
      "message.timestamp.type": "LogAppendTime",
    }),
    null,
  );
  assertEquals(
    timeRetentionOf({
      "cleanup.policy": "delete",
      "retention.ms": "60000",
      "message.timestamp.type": "CreateTime",
    }),
    60000,
  );
});

function watcher(configs: Record<string, Record<string, string>>, recheckMs?: number) {
  const raised = new Map<string, string>();
  const reads: string[] = [];
  const retention = new TopicRetention({
    describe: (topic) => {
      reads.push(topic);
      return configs[topic] ? Promise.resolve(configs[topic]) : Promise.reject(new Error("no such"));
    },
    warnings: { set: (key, sentence) => raised.set(key, sentence), clear: (key) => raised.delete(key) },
    log: logger("test"),
    recheckMs,
  });
  return { retention, raised, reads };
}

Deno.test("a record older than its topic keeps raises one warning naming the topic and the fix", async () => {
  const { retention, raised } = watcher({
    short: { "cleanup.policy": "delete", "retention.ms": "60000" },
    compacted: { "cleanup.policy": "compact", "retention.ms": "60000" },
  });
  for (const topic of ["short", "compacted", "undescribable"]) await retention.watch(topic);
  const now = Date.now();
  retention.check("short", now - 1000);
  retention.check("short", undefined);
  assertEquals(raised.size, 0, "recent records and records without a timestamp are fine");
  const old = Date.UTC(2021, 0, 2);
  for (const topic of ["compacted", "undescribable", "unwatched"]) retention.check(topic, old);
  assertEquals(raised.size, 0, "compacted, undescribable and unwatched topics are not checked");
  assertEquals(
    logged.filter((l) => l.includes("cannot read topic")).map((l) => JSON.parse(l).msg),
    ["cannot read topic undescribable's configs: its retention is not checked"],
    "the check being off is said once",
  );
  retention.check("short", old);
  retention.check("short", old - 1000);
  assertEquals([...raised.keys()], ["retention:short"]);
  const sentence = raised.get("retention:short")!;
  assertStringIncludes(sentence, "topic short deletes records older than 1 min");
  assertStringIncludes(sentence, "(cleanup.policy=delete, retention.ms=60000)");
  assertStringIncludes(sentence, "rows last updated 2021-01-02T00:00:00.000Z");
  assertStringIncludes(
    sentence,
    "set retention.ms=-1 or cleanup.policy=compact, or message.timestamp.type=LogAppendTime",
  );
  assertStringIncludes(sentence, "then reset the connector's offsets");
  assert(!sentence.includes("\n"));
  retention.close();
});

Deno.test("a warned topic is read again on a timer, without records, and a fix clears the warning", async () => {
  const configs = { short: { "cleanup.policy": "delete", "retention.ms": "60000" } };
  const { retention, raised, reads } = watcher(configs, 20);
  await retention.watch("short");
  retention.check("short", Date.UTC(2021, 0, 2));
  assertEquals([...raised.keys()], ["retention:short"]);
  // No more records (the backfill ended): the unchanged topic is read again and the warning stays.
  await waitFor(() => reads.length >= 3, 5000, "the topic read again");
  assertEquals([...raised.keys()], ["retention:short"]);
  configs.short = { "cleanup.policy": "compact", "retention.ms": "60000" };
  await waitFor(() => raised.size === 0, 5000, "the warning cleared");
  // Cleared and nothing else warned: the timer stops (the test's leak check would see it otherwise).
  const readsWhenCleared = reads.length;
  await new Promise((r) => setTimeout(r, 60));
  assertEquals(reads.length, readsWhenCleared);
  retention.close();
});
