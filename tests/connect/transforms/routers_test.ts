import { assertEquals, assertThrows } from "../../support/assert.ts";
import { ConfigException, DataException } from "../../../src/connect/errors.ts";
import { JavaPattern, JavaRegexError } from "../../../src/connect/transforms/java_regex.ts";
import { applied, source, transform } from "./helpers.ts";

function route(regex: string, replacement: string, topic: string): string {
  return applied(transform("RegexRouter", { regex, replacement }), source({ topic })).topic;
}

Deno.test("RegexRouter (Kafka's RegexRouterTest): whole-topic match, $n group references", () => {
  assertEquals(route("foo", "bar", "foo"), "bar");
  assertEquals(route("foo", "bar", "orig"), "orig");
  assertEquals(route("foo", "bar", "foo-bar"), "foo-bar", "a partial match leaves the topic alone");
  assertEquals(route("(.*)", "$1", "orig"), "orig");
  assertEquals(route("(.*)", "prefix-$1", "orig"), "prefix-orig");
  assertEquals(route("(.*)", "$1-suffix", "orig"), "orig-suffix");
  assertEquals(route("(.*)-(\\d\\d\\d\\d\\d\\d\\d\\d)", "$1", "index-20160117"), "index");
  assertEquals(route("(?<table>.*)_raw", "clean.${table}", "incident_raw"), "clean.incident");
  assertEquals(route("(.*)", "\\$1", "orig"), "$1", "a backslash escapes a dollar");
});

Deno.test("RegexRouter keeps everything but the topic", () => {
  const record = source({ topic: "a", key: "k", value: "v", kafkaPartition: 3 });
  const out = applied(transform("RegexRouter", { regex: "a", replacement: "b" }), record);
  assertEquals([out.topic, out.key, out.value, out.kafkaPartition, out.timestamp], ["b", "k", "v", 3, 123]);
});

Deno.test("RegexRouter errors: invalid regex at config, missing group when applied", () => {
  assertThrows(
    () => transform("RegexRouter", { regex: "(", replacement: "x" }),
    ConfigException,
    "Invalid regex",
  );
  assertThrows(
    () => transform("RegexRouter", { replacement: "x" }),
    ConfigException,
    'Missing required configuration "regex"',
  );
  assertThrows(
    () => transform("RegexRouter", { regex: "(.*)", replacement: "$2" }).apply(source({ topic: "t" })),
    DataException,
    "No group 2",
  );
});

Deno.test("JavaPattern translates Java-only syntax and rejects what JS cannot express", () => {
  assertEquals(new JavaPattern("(?i)orders").matches("ORDERS"), true);
  assertEquals(new JavaPattern("\\Qa.b\\E").matches("a.b"), true);
  assertEquals(new JavaPattern("\\Qa.b\\E").matches("axb"), false);
  assertEquals(new JavaPattern("\\Aab\\z").matches("ab"), true);
  assertEquals(new JavaPattern("a|b").matches("ab"), false, "alternation is anchored as a whole");
  assertEquals(
    new JavaPattern("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)").replaceFirst("abcdefghij", "$10-$11"),
    "j-a1",
  );
  assertThrows(() => new JavaPattern("a++"), JavaRegexError, "Possessive");
});

Deno.test("TimestampRouter formats the record timestamp into the topic (UTC)", () => {
  const record = source({ topic: "test", timestamp: 1483425001864 });
  assertEquals(applied(transform("TimestampRouter"), record).topic, "test-20170103");
  const custom = transform("TimestampRouter", {
    "topic.format": "${timestamp}/${topic}",
    "timestamp.format": "yyyy-MM",
  });
  assertEquals(applied(custom, record).topic, "2017-01/test");
  assertThrows(
    () => transform("TimestampRouter").apply(source({ timestamp: null })),
    DataException,
    "Timestamp missing on record",
  );
  assertThrows(
    () => transform("TimestampRouter", { "timestamp.format": "yyyyMMddq" }),
    ConfigException,
    "Illegal pattern character 'q'",
  );
});
