/**
 * What an offset set over REST (`PATCH /connectors/<name>/offsets`, KIP-875) must look like to mean something to
 * the source task: a partition as `partition.ts` builds it (`table`, `instance`, `query_fingerprint`, and
 * `"stream": "deletes"` for deletion capture), and an offset the task can resume from: a cursor (`timestamp`
 * `yyyy-MM-dd HH:mm:ss` and `sys_id`, as GET .../offsets shows it) or a parallel backfill's state, or null to
 * remove it. The task would ignore anything else and read the table again from its start, so it is refused instead,
 * as Connect lets a connector refuse offsets it cannot use (`SourceConnector.alterOffsets`).
 */
import type { OffsetPrimitive } from "../connect/record.ts";
import { cursorFromOffset } from "./cursor.ts";
import { backfillFromOffset } from "./parallel_backfill.ts";

const PARTITION_KEYS = ["table", "instance", "query_fingerprint"];

type OffsetMap = Readonly<Record<string, OffsetPrimitive>>;

/** What is wrong with one offset change of a TableSourceConnector, or null when nothing is. */
export function sourceOffsetProblem(partition: OffsetMap, offset: OffsetMap | null): string | null {
  const missing = PARTITION_KEYS.filter((k) => typeof partition[k] !== "string" || partition[k] === "");
  if (missing.length > 0 || (partition.stream !== undefined && partition.stream !== "deletes")) {
    return `The partition ${
      JSON.stringify(partition)
    } is not one of a TableSourceConnector: it must hold the ` +
      `strings ${
        PARTITION_KEYS.map((k) => `'${k}'`).join(", ")
      } (and "stream": "deletes" for deletion capture), ` +
      "as GET /connectors/<name>/offsets shows them";
  }
  if (offset === null) return null;
  const problem = offsetProblem(offset);
  return problem === null
    ? null
    : `The offset for partition ${JSON.stringify(partition)} cannot be resumed from: ${problem}`;
}

function offsetProblem(offset: OffsetMap): string | null {
  if ("backfill.high" in offset) {
    try {
      backfillFromOffset(offset);
      return null;
    } catch (e) {
      return `its parallel backfill state is not valid: ${(e as Error).message}`;
    }
  }
  if (cursorFromOffset(offset) !== null) return null;
  return `'timestamp' must be a date-time 'yyyy-MM-dd HH:mm:ss' and 'sys_id' a string, got ${
    JSON.stringify({ timestamp: offset.timestamp ?? null, sys_id: offset.sys_id ?? null })
  } (null as the offset removes it)`;
}
