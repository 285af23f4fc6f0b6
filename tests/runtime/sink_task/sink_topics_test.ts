/** Which topics a sink consumes while some it names are missing, and the warning that says what it waits for. */
import { assertEquals } from "../../support/assert.ts";
import { resolveSinkTopics, sameTopics } from "../../../src/runtime/sink_task/sink_topics.ts";

Deno.test("listed topics: the existing ones are consumed, the missing ones named in the warning", () => {
  assertEquals(resolveSinkTopics({ topics: ["b", "a"] }, ["a", "b", "x"]), {
    topics: ["a", "b"],
    waiting: null,
  });
  assertEquals(resolveSinkTopics({ topics: ["b", "a", "c"] }, ["a", "x"]), {
    topics: ["a"],
    waiting: "waiting for topics b, c to exist (checked every 5 s)",
  });
  assertEquals(resolveSinkTopics({ topics: ["orders.in"] }, []), {
    topics: [],
    waiting: "waiting for topic orders.in to exist (checked every 5 s)",
  });
});

Deno.test("topics.regex: every existing match is consumed; none yet is a wait", () => {
  const pattern = { pattern: new RegExp("^(?:orders\\..*)$") };
  assertEquals(resolveSinkTopics(pattern, ["orders.b", "other", "orders.a"]), {
    topics: ["orders.a", "orders.b"],
    waiting: null,
  });
  assertEquals(resolveSinkTopics(pattern, ["other"]), {
    topics: [],
    waiting: "waiting for a topic matching topics.regex orders\\..* to exist (checked every 5 s)",
  });
});

Deno.test("sameTopics compares sorted lists", () => {
  assertEquals(sameTopics(["a", "b"], ["a", "b"]), true);
  assertEquals(sameTopics(["a"], ["a", "b"]), false);
  assertEquals(sameTopics(["a", "c"], ["a", "b"]), false);
});
