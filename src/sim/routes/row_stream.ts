/**
 * The body of a list answer, streamed in chunks of rows, with the per-row latency fault and the two ways a
 * transaction is cancelled mid-stream: the `quota_cancel` fault (after a number of rows) and the transaction
 * quota running out (limits/quota.ts).
 */
import { errorBody, Errors } from "../http/responses.ts";
import type { RowRenderer } from "../http/serialize.ts";
import { cancelledListEnding, quotaSpent } from "../limits/quota.ts";
import type { ApiRequest } from "./request.ts";

const ROWS_PER_CHUNK = 100;
/** Smaller chunks while a quota runs with a per-row latency, so the cut falls near the quota's end. */
const ROWS_PER_CHUNK_UNDER_QUOTA = 10;

export async function* streamRows(
  rows: number[],
  renderer: RowRenderer,
  req: ApiRequest,
): AsyncIterable<string> {
  const { perRowMs, quotaCancelAfterRows, quotaCancelShape } = req.faults;
  const quota = req.quota;
  const cancelAt = quotaCancelAfterRows === undefined
    ? Infinity
    : quotaCancelAfterRows === "half"
    ? Math.floor(rows.length / 2)
    : quotaCancelAfterRows;
  const perChunk = quota && perRowMs > 0 ? ROWS_PER_CHUNK_UNDER_QUOTA : ROWS_PER_CHUNK;
  /** The end of a body cancelled before row `i`. */
  const ending = (i: number): string => {
    const next = i < rows.length ? () => renderer.render(rows[i]) : undefined;
    if (i >= cancelAt) {
      // The fault without a shape keeps its first form: the array left open, the whole error object after it.
      return quotaCancelShape
        ? cancelledListEnding(quotaCancelShape, i, next)
        : errorBody(...Errors.quotaCancelled);
    }
    req.state.counters.quotaCancelled++;
    return cancelledListEnding(quota!.shape, i, next);
  };
  let chunk = '{"result":[';
  for (let i = 0; i < rows.length; i++) {
    if (i >= cancelAt || quotaSpent(quota)) {
      yield chunk + ending(i);
      return;
    }
    if (i > 0) chunk += ",";
    chunk += renderer.render(rows[i]);
    if ((i + 1) % perChunk === 0) {
      yield chunk;
      chunk = "";
      if (perRowMs > 0) await new Promise((r) => setTimeout(r, perRowMs * perChunk));
    }
  }
  if (perRowMs > 0) await new Promise((r) => setTimeout(r, perRowMs * (rows.length % perChunk)));
  if (cancelAt !== Infinity || quotaSpent(quota)) {
    yield chunk + ending(rows.length);
    return;
  }
  yield chunk + "]}";
}
