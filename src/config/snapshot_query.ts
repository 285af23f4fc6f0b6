/**
 * The encoded query a re-snapshot may be narrowed by (`POST /connectors/<n>/tables/<alias>/snapshot`, body
 * `{"query": …}`): checked in the main thread before the request reaches the task, so a bad one is a 400 that says
 * what is wrong. The task ANDs it as one term into every `^NQ` group of the table's own query, so it must be one
 * plain filter: conditions joined by `^` and `^OR`, no `^NQ` (an OR of groups would escape the table's query), no
 * ORDERBY (the snapshot orders by sys id itself), no line breaks or control characters.
 */

/** Longest query accepted: the instance's URL limits come long before. */
export const SNAPSHOT_QUERY_MAX_LENGTH = 4000;

/** The query as the task uses it ("" for none), or the problem with it. */
export function snapshotQuery(value: unknown): { query: string } | { problem: string } {
  if (value === undefined || value === null) return { query: "" };
  if (typeof value !== "string") return { problem: `"query" must be a string, got ${typeof value}` };
  const query = value.trim().replace(/\^EQ$/, "");
  if (query.length > SNAPSHOT_QUERY_MAX_LENGTH) {
    return { problem: `"query" is longer than ${SNAPSHOT_QUERY_MAX_LENGTH} characters` };
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(query)) {
    return { problem: `"query" must not contain line breaks or control characters` };
  }
  if (/(?:^|\^)NQ/.test(query)) {
    return { problem: `"query" must be one filter without ^NQ (it is ANDed with the table's own query)` };
  }
  if (/(?:^|\^)ORDERBY/.test(query)) {
    return {
      problem: `"query" must be a plain filter without ORDERBY: the snapshot orders by sys id itself`,
    };
  }
  if (query.startsWith("^")) return { problem: `"query" must not start with ^` };
  return { query };
}
