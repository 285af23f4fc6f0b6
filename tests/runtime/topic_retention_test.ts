/**
 * Retention traps: which topic configs delete records by their (row) timestamps, and when a record about to be
 * written is older than its topic keeps. The configs come from a function, as DescribeConfigs would answer.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { logger, setLogLevel } from "../../src/observability/log.ts";
import { timeRetentionOf, TopicRetention } from "../../src/runtime/topic_retention.ts";

setLogLevel("error");

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

function watcher(configs: Record<string, Record<string, string>>) {
  const raised = new Map<string, string>();
  const retention = new TopicRetention({
    describe: (topic) =>
      configs[topic] ? Promise.resolve(configs[topic]) : Promise.reject(new Error("no such")),
    warnings: { set: (key, sentence) => raised.set(key, sentence), clear: (key) => raised.delete(key) },
    log: logger("test"),
  });
  return { retention, raised };
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
  assert(!sentence.includes("\n"));
});
