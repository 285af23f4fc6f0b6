/**
 * The instance's clock as told by the `Date` header of its responses (second precision, RFC 9110 IMF-fixdate).
 *
 * The estimate is conservative: the header is stamped before the response leaves the instance and truncated
 * to the second, so `Date + (now - receivedAt)` is never ahead of the instance's real clock, which is the safe
 * direction for a source's high-water mark. The latest sample wins (the instance clock may be set back).
 */

/** An IMF-fixdate (`Tue, 24 Nov 2026 13:14:10 GMT`); it contains a comma itself, so values cannot be split on `,`. */
const IMF_FIXDATE =
  /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT\b/g;

/**
 * Parses an HTTP `Date` header; null when absent or when no value parses. A proxy or load balancer in front of
 * the instance may add its own `Date`, which then arrives comma-joined with the instance's: the first valid
 * IMF-fixdate wins (the origin's value comes first when the proxy appends). A single value in an obsolete
 * format (RFC 850, asctime) is accepted as the platform parses it.
 */
export function parseHttpDate(value: string | null): Date | null {
  if (!value) return null;
  for (const match of value.matchAll(IMF_FIXDATE)) {
    const ms = Date.parse(match[0]);
    if (!Number.isNaN(ms)) return new Date(ms);
  }
  if (/GMT.*GMT/.test(value)) return null; // several values, none valid: do not let the parser guess
  const ms = Date.parse(value);
  return Number.isNaN(ms) || !/\d{2}:\d{2}:\d{2}/.test(value) ? null : new Date(ms);
}

/** Why a `Date` header gives no instance time, for error messages (the header is not secret). */
export function describeUnusableDate(value: string | null): string {
  if (value === null) return "the response has no Date header";
  const shown = value.length > 120 ? `${value.slice(0, 120)}…` : value;
  return `no value of the response's Date header is an HTTP date: "${shown}"`;
}

export class InstanceClock {
  private offsetMs: number | null = null;
  /** The last header seen and its instant: the header changes once a second, so each value is parsed once. */
  private lastHeader: string | null = null;
  private lastMs: number | null = null;

  /** Records a response's `Date` header received at local time `receivedAt`. Returns the parsed date. */
  observe(dateHeader: string | null, receivedAt: number = Date.now()): Date | null {
    if (dateHeader !== this.lastHeader) {
      this.lastHeader = dateHeader;
      this.lastMs = parseHttpDate(dateHeader)?.getTime() ?? null;
    }
    if (this.lastMs === null) return null;
    this.offsetMs = this.lastMs - receivedAt;
    return new Date(this.lastMs);
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
