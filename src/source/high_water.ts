/**
 * A table's sweep high-water marks (instance_time.ts): the instance clock minus `svc.source.safety.lag.seconds`,
 * bounded by the table's sweep bound (deletion capture).
 *
 * The instance clock is the last `Date` header the task saw (any table) carried forward on the local clock. For
 * an instance clock that runs, that is never ahead of it (the header is truncated to the second and stamped
 * before the response arrives), so a sweep needs no request of its own to read the clock: a caught-up table costs
 * one request per poll. An instance clock that stood still or was set back would be run ahead of, so the first
 * page of every sweep checks its own response's `Date` (`contradicts`): when that `Date` minus the lag is before
 * the mark, the page is not used and the next sweep's mark comes from that `Date` as it is. Nothing after the
 * instance clock minus the lag is ever handled.
 *
 * Before any response carried a usable `Date`, one small request reads the clock (and fails the table with the
 * header's problem when there is none). The mark of a parallel backfill (fixed once for the whole backfill) is
 * read from a `Date` younger than a second, as before.
 */
import type { TableClient } from "../instance/mod.ts";
import { type HighWaterMark, highWaterMark, type InstanceTimeSource } from "./instance_time.ts";

export interface HighWaterOptions {
  readonly table: { readonly table: string };
  readonly source: { readonly safetyLagSeconds: number };
  readonly client: TableClient;
  readonly clock: InstanceTimeSource;
  readonly signal: AbortSignal;
  /** Bounds each sweep's high-water mark (deletion capture keeps rows behind the deletions read). */
  readonly sweepBound?: (mark: HighWaterMark, signal: AbortSignal) => Promise<HighWaterMark>;
}

export class HighWater {
  /** The instance time a contradicted sweep saw: the next mark is taken from it as it is. */
  #restartAt: number | null = null;

  constructor(private readonly o: HighWaterOptions) {}

  /** The mark of a new sweep. */
  async forSweep(): Promise<HighWaterMark> {
    const restart = this.#restartAt;
    this.#restartAt = null;
    return await this.#bounded(restart ?? this.o.clock.estimate() ?? await this.#read());
  }

  /** A mark from a reading younger than a second (the parallel backfill's, fixed once). */
  async fresh(): Promise<HighWaterMark> {
    return await this.#bounded(this.o.clock.fresh() ?? await this.#read());
  }

  /**
   * True when the instance time a sweep's first response carried (`instanceTime`, null when it had no usable
   * `Date`) is behind the sweep's `mark` plus the lag: the instance clock did not keep pace with the local one.
   * The page must not be used; the next sweep's mark is taken from that time.
   */
  contradicts(mark: HighWaterMark, instanceTime: Date | null): boolean {
    if (instanceTime === null) return false;
    if (highWaterMark(instanceTime.getTime(), this.o.source.safetyLagSeconds).epochMs >= mark.epochMs) {
      return false;
    }
    this.#restartAt = instanceTime.getTime();
    return true;
  }

  async #bounded(instantMs: number): Promise<HighWaterMark> {
    const mark = highWaterMark(instantMs, this.o.source.safetyLagSeconds);
    return this.o.sweepBound ? await this.o.sweepBound(mark, this.o.signal) : mark;
  }

  async #read(): Promise<number> {
    const date = await this.o.client.readClock(this.o.table.table, this.o.signal);
    this.o.clock.observe(date);
    return date.getTime();
  }
}
