/**
 * The instance's own load signal: `Server-Timing: sem_wait;dur=N, sesh_wait;dur=M` (instance-limits.md §2).
 * `sem_wait` is how long the request queued for an API_INT semaphore thread, `sesh_wait` how long it waited for
 * its session's previous request; both in milliseconds. The adaptive limit (adaptive_limit.ts) reads `sem_wait`.
 */

export interface ServerTiming {
  /** Milliseconds queued for a semaphore thread. */
  semWaitMs: number;
  /** Milliseconds queued behind the session's previous request; null when the header does not say. */
  seshWaitMs: number | null;
}

/**
 * The semaphore and session waits the header reports, or null when it has no usable `sem_wait` (absent, a
 * proxy stripped it, or another server's metrics). Metrics are comma-separated, parameters `;`-separated
 * (RFC: W3C Server Timing); names are matched case-insensitively and the first occurrence of a name wins.
 */
export function parseServerTiming(header: string | null): ServerTiming | null {
  if (header === null) return null;
  let semWaitMs: number | null = null;
  let seshWaitMs: number | null = null;
  for (const metric of header.split(",")) {
    const [rawName, ...params] = metric.split(";");
    const name = rawName.trim().toLowerCase();
    if (name !== "sem_wait" && name !== "sesh_wait") continue;
    const duration = durationOf(params);
    if (duration === null) continue;
    if (name === "sem_wait") semWaitMs ??= duration;
    else seshWaitMs ??= duration;
  }
  return semWaitMs === null ? null : { semWaitMs, seshWaitMs };
}

function durationOf(params: string[]): number | null {
  for (const param of params) {
    const at = param.indexOf("=");
    if (at < 0 || param.slice(0, at).trim().toLowerCase() !== "dur") continue;
    const text = param.slice(at + 1).trim().replace(/^"|"$/g, "");
    const value = Number(text);
    return text !== "" && Number.isFinite(value) && value >= 0 ? value : null;
  }
  return null;
}
