/** Which worker keys pass the analysis unreported: every key tablesync's Kafka clients read from the section. */
import { assertEquals } from "../support/assert.ts";
import { analyzeWorker } from "../../src/config/worker_config.ts";
import { kafkaOptionsFromProperties } from "../../src/kafka/mod.ts";

Deno.test("every key the Kafka client options read from the worker section passes without a word", async () => {
  const read = new Set<string>();
  const props = new Proxy({ "bootstrap.servers": "kafka:9092" } as Record<string, string>, {
    get(target, key) {
      if (typeof key === "string") read.add(key);
      return target[key as string];
    },
  });
  await kafkaOptionsFromProperties(props);
  assertEquals(read.has("linger.ms") && read.has("auto.offset.reset"), true, [...read].join(", "));
  const analysis = analyzeWorker(Object.fromEntries([...read].map((key) => [key, "1"])));
  const unknown = (messages: Map<string, string[]>) =>
    [...messages].filter(([, list]) => list.some((m) => m.startsWith("Unknown property")));
  assertEquals(unknown(analysis.errors), []);
  assertEquals(unknown(analysis.warnings), []);
});
