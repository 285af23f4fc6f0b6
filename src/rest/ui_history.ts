/**
 * The status page's memory of throughput: every 10 s, the main thread samples each series' running count (a
 * source table's rows emitted, a sink task's records written) into a ring buffer of the last 15 minutes. Rates
 * and the page's charts come from these samples, so a reload keeps the chart and every viewer sees the same.
 */

export interface RatePoint {
  /** Milliseconds since the epoch. */
  t: number;
  perSecond: number;
}

interface Sample {
  t: number;
  counts: ReadonlyMap<string, number>;
}

export const HISTORY_WINDOW_MS = 15 * 60_000;
const SAMPLE_INTERVAL_MS = 10_000;
/** A rate over less than this would jump with every poll: the live rate looks back at least this far. */
const MIN_RATE_WINDOW_MS = 5_000;

export class ThroughputHistory {
  #samples: Sample[] = [];
  readonly #read: () => ReadonlyMap<string, number>;
  readonly #intervalMs: number;

  /** `read` gives every series' running count now (keys are the page's series names). */
  constructor(read: () => ReadonlyMap<string, number>, intervalMs = SAMPLE_INTERVAL_MS) {
    this.#read = read;
    this.#intervalMs = intervalMs;
  }

  /** Takes a sample now and then every interval; returns the function that stops sampling. */
  start(): () => void {
    this.sample();
    const timer = setInterval(() => this.sample(), this.#intervalMs);
    Deno.unrefTimer(timer);
    return () => clearInterval(timer);
  }

  sample(now = Date.now()): void {
    this.#samples.push({ t: now, counts: new Map(this.#read()) });
    const keep = Math.ceil(HISTORY_WINDOW_MS / this.#intervalMs) + 1;
    if (this.#samples.length > keep) this.#samples.splice(0, this.#samples.length - keep);
  }

  /** Per-second rate of `key` now (count `current`), or null before there is a sample to compare with. */
  rate(key: string, current: number, now = Date.now()): number | null {
    const older = this.#samples.filter((s) => now - s.t >= MIN_RATE_WINDOW_MS);
    const base = older.at(-1) ?? this.#samples[0];
    if (!base || now - base.t < 500) return null;
    return perSecond(base.counts.get(key) ?? 0, current, now - base.t);
  }

  /** The rate between consecutive samples over the window, and the live rate last, for the chart. */
  series(key: string, current: number, now = Date.now()): RatePoint[] {
    const samples = this.#samples.filter((s) => now - s.t <= HISTORY_WINDOW_MS);
    const points: RatePoint[] = [];
    for (let i = 1; i < samples.length; i++) {
      const [a, b] = [samples[i - 1], samples[i]];
      points.push({
        t: b.t,
        perSecond: perSecond(a.counts.get(key) ?? 0, b.counts.get(key) ?? 0, b.t - a.t),
      });
    }
    const live = this.rate(key, current, now);
    if (live !== null) points.push({ t: now, perSecond: live });
    return points;
  }
}

/** A count that went down was reset (the task restarted): what it counted since is its new value. */
function perSecond(before: number, after: number, elapsedMs: number): number {
  const delta = after >= before ? after - before : after;
  return elapsedMs > 0 ? (delta * 1000) / elapsedMs : 0;
}
