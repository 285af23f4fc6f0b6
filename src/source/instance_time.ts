/**
 * The safety-lag high-water mark (`highWaterMark`): where a sweep stops, read from the instance clock.
 *
 * The instance clock as the source uses it: the `Date` header of the latest response (any table of this task; one
 * instance has one clock). `estimate` carries it forward on the local clock, which never runs ahead of a running
 * instance clock (the header is truncated to the second and stamped before the response arrives); sweeps use it
 * and check it against their first response's own `Date` (high_water.ts), so a clock that stands still or jumps
 * back is followed exactly. `fresh` is a reading younger than one second, the header's own precision, as it is.
 *
 * The high-water mark of a sweep is that reading, truncated to the second, minus `svc.source.safety.lag.seconds`.
 * It is inclusive: with a lag of 1 s, a reading of 12:00:05 closes 12:00:04 and earlier, and leaves 12:00:05 (which
 * may still be written) to the next sweep.
 */
import { steadyNow } from "../common/steady_clock.ts";
import { formatGlideDateTime } from "./glide_timestamp.ts";

const FRESHNESS_MS = 1000;

export class InstanceTimeSource {
  #instantMs: number | null = null;
  #receivedAt = 0;

  /** On the steady clock: a step of the host's clock must not move the instance time it carries forward. */
  constructor(private readonly localNow: () => number = steadyNow) {}

  /** Records the Date header of a response just received. */
  observe(instanceTime: Date | null): void {
    if (instanceTime === null) return;
    this.#instantMs = instanceTime.getTime();
    this.#receivedAt = this.localNow();
  }

  /** The latest reading carried forward on the local clock, or null before any. */
  estimate(): number | null {
    return this.#instantMs === null ? null : this.#instantMs + (this.localNow() - this.#receivedAt);
  }

  /** The latest reading as the instance gave it (not carried forward on the local clock), or null before any. */
  last(): number | null {
    return this.#instantMs;
  }

  /** The instance time of a reading younger than FRESHNESS_MS, or null. */
  fresh(): number | null {
    if (this.#instantMs === null || this.localNow() - this.#receivedAt >= FRESHNESS_MS) return null;
    return this.#instantMs;
  }
}

export interface HighWaterMark {
  readonly epochMs: number;
  /** As an encoded-query literal. */
  readonly text: string;
}

export function highWaterMark(instanceMs: number, safetyLagSeconds: number): HighWaterMark {
  const epochMs = Math.floor(instanceMs / 1000) * 1000 - safetyLagSeconds * 1000;
  return { epochMs, text: formatGlideDateTime(epochMs) };
}
