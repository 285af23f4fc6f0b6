/** offset_check.ts: offsets set over REST must be ones a source task can resume from, else a 400 naming why. */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { sourceOffsetProblem } from "../../src/source/offset_check.ts";
import type { OffsetPrimitive } from "../../src/connect/record.ts";

type OffsetMap = Record<string, OffsetPrimitive>;

const PARTITION = { table: "incident", instance: "dev1.example.com", query_fingerprint: "f632a74e2d20a1f9" };
const CURSOR = { timestamp: "2026-11-27 20:56:19", sys_id: "46562c8d9543ee5430ac62c544e99700" };

Deno.test("what GET .../offsets shows is accepted: cursors, overlap lists, deletion streams, backfills, null", () => {
  for (
    const [partition, offset] of [
      [PARTITION, CURSOR],
      [PARTITION, { ...CURSOR, overlap_sent: '["2026-11-27 20:56:19|46562c8d9543ee5430ac62c544e99700|5"]' }],
      [{ ...PARTITION, stream: "deletes" }, CURSOR],
      [PARTITION, {
        "backfill.high": "2026-11-27 20:00:00",
        "backfill.ranges": 2,
        "backfill.0.timestamp": "2026-01-01 00:00:00",
        "backfill.0.sys_id": "0a",
        "backfill.0.done": false,
        "backfill.1.done": true,
      }],
      [PARTITION, null],
    ] as const
  ) {
    assertEquals(sourceOffsetProblem(partition, offset), null, JSON.stringify(offset));
  }
});

Deno.test("a partition that is not a table's is refused, naming the keys it needs", () => {
  for (
    const partition of <OffsetMap[]> [{}, { table: "incident" }, { ...PARTITION, instance: 5 }, {
      ...PARTITION,
      stream: "x",
    }]
  ) {
    const problem = sourceOffsetProblem(partition, CURSOR);
    assertStringIncludes(
      problem ?? "",
      "'table', 'instance', 'query_fingerprint'",
      JSON.stringify(partition),
    );
  }
});

Deno.test("an offset the task could not resume from is refused, naming the field", () => {
  for (
    const offset of <OffsetMap[]> [
      {},
      { timestamp: "yesterday", sys_id: "46562c8d9543ee5430ac62c544e99700" },
      { timestamp: "2026-11-27 20:56:19", sys_id: 5 },
      { timestamp: 5 },
    ]
  ) {
    const problem = sourceOffsetProblem(PARTITION, offset) ?? "";
    assertStringIncludes(
      problem,
      "cannot be resumed from: 'timestamp' must be a date-time",
      JSON.stringify(offset),
    );
  }
  const backfill = sourceOffsetProblem(PARTITION, { "backfill.high": "soon", "backfill.ranges": 1 }) ?? "";
  assertStringIncludes(backfill, "parallel backfill state is not valid");
  assertStringIncludes(backfill, "backfill.high");
});
