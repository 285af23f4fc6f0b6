/**
 * The instance clock. Every timestamp the simulator writes (sys_updated_on, token expiry, the HTTP Date
 * header) comes from here, so tests can freeze time, jump it, or run the instance ahead of the client
 * to exercise clock-skew handling.
 */
import { parseGlideDateTime } from "./glide_time.ts";

export type ClockMode = "real" | "offset" | "frozen";

/** How the clock starts. */
export type ClockSetting =
  | { mode: "real" }
  | { mode: "offset"; offsetMs: number }
  | { mode: "frozen"; at: Date | string };

export class InstanceClock {
  #mode: ClockMode = "real";
  #offsetMs = 0;
  #frozenAtMs = 0;

  constructor(setting: ClockSetting = { mode: "real" }) {
    if (setting.mode === "offset") this.setOffset(setting.offsetMs);
    else if (setting.mode === "frozen") this.freeze(setting.at);
  }

  get mode(): ClockMode {
    return this.#mode;
  }

  /** Instance time in epoch milliseconds. */
  nowMs(): number {
    return this.#mode === "frozen" ? this.#frozenAtMs : Date.now() + this.#offsetMs;
  }

  /** Instance time in whole epoch seconds (the precision of glide_date_time). */
  nowSeconds(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** Runs on the host's real time again. */
  useRealTime(): void {
    this.#mode = "real";
    this.#offsetMs = 0;
  }

  /** Runs on real time shifted by `offsetMs` (positive = instance ahead of the host). */
  setOffset(offsetMs: number): void {
    this.#mode = offsetMs === 0 ? "real" : "offset";
    this.#offsetMs = offsetMs;
  }

  /** Stops the clock at `at` (default: the current instance time). Only `advance`/`set` move it afterwards. */
  freeze(at?: Date | string | number): void {
    this.#frozenAtMs = at === undefined ? this.nowMs() : toMs(at);
    this.#mode = "frozen";
  }

  /** Moves the clock forward (or back, for negative values) in any mode. */
  advance(ms: number): void {
    if (this.#mode === "frozen") this.#frozenAtMs += ms;
    else this.setOffset(this.#offsetMs + ms);
  }

  /**
   * Makes the instance time equal `at`. A frozen clock stays frozen at `at`; a running clock keeps running
   * from `at` (it becomes an offset clock).
   */
  set(at: Date | string | number): void {
    const target = toMs(at);
    if (this.#mode === "frozen") this.#frozenAtMs = target;
    else this.setOffset(target - Date.now());
  }
}

/** Accepts a Date, epoch milliseconds, an ISO string or a glide `yyyy-MM-dd HH:mm:ss` UTC string. */
function toMs(at: Date | string | number): number {
  if (typeof at === "number") return at;
  if (at instanceof Date) return at.getTime();
  const glide = parseGlideDateTime(at);
  if (!Number.isNaN(glide)) return glide * 1000;
  const parsed = Date.parse(at);
  if (Number.isNaN(parsed)) throw new RangeError(`not a date-time: ${at}`);
  return parsed;
}
