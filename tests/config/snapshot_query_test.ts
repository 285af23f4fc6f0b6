/** The query a re-snapshot may be narrowed by: none, one plain filter, or a 400 that says what is wrong. */
import { assert, assertEquals } from "../support/assert.ts";
import { SNAPSHOT_QUERY_MAX_LENGTH, snapshotQuery } from "../../src/config/snapshot_query.ts";

Deno.test("snapshot query: absent is every row; a plain filter is kept (a trailing ^EQ dropped)", () => {
  assertEquals(snapshotQuery(undefined), { query: "" });
  assertEquals(snapshotQuery(null), { query: "" });
  assertEquals(snapshotQuery("  priority=1^ORstate=2^EQ "), { query: "priority=1^ORstate=2" });
  assertEquals(snapshotQuery("short_descriptionLIKEa^^b"), { query: "short_descriptionLIKEa^^b" });
});

Deno.test("snapshot query: refused with a reason naming the problem", () => {
  const problems: [unknown, RegExp][] = [
    [5, /must be a string/],
    ["priority=1^NQstate=2", /\^NQ/],
    ["NQstate=2", /\^NQ/],
    ["priority=1^ORDERBYsys_id", /ORDERBY/],
    ["ORDERBYDESCnumber", /ORDERBY/],
    ["priority=1\nstate=2", /control characters/],
    ["a=\u0001", /control characters/],
    ["^priority=1", /start with/],
    ["a".repeat(SNAPSHOT_QUERY_MAX_LENGTH + 1), /longer than/],
  ];
  for (const [value, reason] of problems) {
    const result = snapshotQuery(value);
    assert(
      "problem" in result && reason.test(result.problem),
      `${JSON.stringify(value)}: ${JSON.stringify(result)}`,
    );
  }
});
