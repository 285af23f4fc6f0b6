/**
 * A smoothed rate (rows per second) from a running total sampled at irregular times: an exponentially weighted
 * average of the rates between samples, each weighted by its time span, with a time constant of TAU_MS and the
 * start-up bias corrected (early on it is the plain average since the first sample). The first sample is the
 * baseline only: a backfill's first page is queued in one burst, which says nothing about the pace that follows.
 *
 * No rate is given before MIN_SPAN_MS after the baseline and MIN_SAMPLES samples after it, so an ETA is never
 * derived from one burst ("1 s" for 16,210 rows). A stall counts: asked later than the last sample, the rate
 * includes the time since at zero rows.
 */
const TAU_MS = 30_000;
const MIN_SPAN_MS = 10_000;
const MIN_SAMPLES = 2;

export class RateEstimate {
  #first: number | null = null;
  #last: { at: number; total: number } | null = null;
  /** Bias-corrected EWMA: weighted sum of rates and the sum of weights. */
  #weighted = 0;
  #weights = 0;
  #samples = 0;

  /** `total` is the running total at local time `at` (ms). */
  sample(at: number, total: number): void {
    const last = this.#last;
    if (last === null) {
      this.#first = at;
      this.#last = { at, total };
      return;
    }
    const dt = at - last.at;
    if (dt <= 0) return;
    [this.#weighted, this.#weights] = this.#decayed(dt, ((total - last.total) * 1000) / dt);
    this.#samples++;
    this.#last = { at, total };
  }

  /** Rows per second as of `now`, or null until measured long enough. */
  rate(now: number): number | null {
    const last = this.#last;
    if (last === null || this.#first === null || this.#samples < MIN_SAMPLES) return null;
    if (now - this.#first < MIN_SPAN_MS) return null;
    const [weighted, weights] = now > last.at
      ? this.#decayed(now - last.at, 0)
      : [this.#weighted, this.#weights];
    return weights > 0 ? weighted / weights : null;
  }

  /** The sums after `dt` ms at `rate`. */
  #decayed(dt: number, rate: number): [number, number] {
    const keep = Math.exp(-dt / TAU_MS);
    return [this.#weighted * keep + (1 - keep) * rate, this.#weights * keep + (1 - keep)];
  }
}
