/**
 * The instance's clock as told by the `Date` header of its responses (second precision, RFC 9110 IMF-fixdate).
 *
 * The estimate is conservative: the header is stamped before the response leaves the instance and truncated
 * to the second, so `Date + (now - receivedAt)` is never ahead of the instance's real clock, which is the safe
 * direction for a source's high-water mark. The latest sample wins (the instance clock may be set back).
 */

/** Parses an HTTP date header; null when absent or unparseable. */
export function parseHttpDate(value: string | null): Date | null {
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms);
}

export class InstanceClock {
  private offsetMs: number | null = null;

  /** Records a response's `Date` header received at local time `receivedAt`. Returns the parsed date. */
  observe(dateHeader: string | null, receivedAt: number = Date.now()): Date | null {
    const date = parseHttpDate(dateHeader);
    if (date) this.offsetMs = date.getTime() - receivedAt;
    return date;
  }

  /** Estimated current instance time, or null before any response carried a `Date` header. */
  now(localNow: number = Date.now()): Date | null {
    return this.offsetMs === null ? null : new Date(localNow + this.offsetMs);
  }

  /** Instance time minus local time, as last observed (positive: the instance is ahead). */
  get skewMs(): number | null {
    return this.offsetMs;
  }
}
