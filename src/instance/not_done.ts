/**
 * HTTP 202 with an empty body: the instance queued the request behind too many others on its session and then
 * dropped it without doing it (instance-limits.md §3). It means "not done" for reads and writes alike: a read so
 * answered is no empty page, a write so answered wrote nothing. Both are sent again (http_client.ts for single
 * requests, batch_writer.ts for Batch API items); a POST too, since nothing was created.
 */

/** True for a 202 whose body is empty or blank. */
export function isNotDone(status: number, body: Uint8Array): boolean {
  if (status !== 202) return false;
  for (const byte of body) {
    // Space, tab, CR, LF.
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== 0x0a) return false;
  }
  return true;
}

/** Why a not-done answer is retried, for logs and the final error. */
export const NOT_DONE_REASON =
  "with an empty body: not done (too many requests were waiting on the instance session)";
