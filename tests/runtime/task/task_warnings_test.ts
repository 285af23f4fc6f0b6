/** A task's standing warnings: each sentence is sent and logged once when it appears, and cleared by its key. */
import { assertEquals } from "../../support/assert.ts";
import { logger, setLogSink } from "../../../src/observability/log.ts";
import { TaskWarnings } from "../../../src/runtime/task/task_warnings.ts";

Deno.test("a warning raised on every retry is published and logged once; clearing it publishes the rest", () => {
  const lines: string[] = [];
  setLogSink((line) => lines.push(line));
  try {
    const published: string[][] = [];
    const warnings = new TaskWarnings((list) => published.push(list), logger("test"));
    for (let retry = 0; retry < 3; retry++) warnings.set("sink-topics", "waiting for topic a to exist");
    warnings.set("retention:b", "topic b deletes old records");
    warnings.set("sink-topics", "waiting for topics a, c to exist");
    warnings.clear("sink-topics");
    warnings.clear("sink-topics");
    assertEquals(published, [
      ["waiting for topic a to exist"],
      ["waiting for topic a to exist", "topic b deletes old records"],
      ["waiting for topics a, c to exist", "topic b deletes old records"],
      ["topic b deletes old records"],
    ]);
    const logged = lines.map((l) => JSON.parse(l)).map((l) => `${l.level} ${l.msg}`);
    assertEquals(logged, [
      "warn waiting for topic a to exist",
      "warn topic b deletes old records",
      "warn waiting for topics a, c to exist",
      "info resolved: waiting for topics a, c to exist",
    ]);
  } finally {
    setLogSink((line) => Deno.stderr.writeSync(new TextEncoder().encode(line)));
  }
});
