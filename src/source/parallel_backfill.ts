/**
 * The state of a parallel backfill (`svc.source.backfill.parallelism` > 1): the table's rows up to a high-water
 * mark fixed once at the start (T0) are read in N ranges of sys ids, each by its own sweep, concurrently. Every
 * key lives in exactly one range and each range reads in cursor order, so a key's versions reach the topic in
 * cursor order; streaming (the single cursor) starts only once every range reached T0, so a key's later versions
 * come after its range's.
 *
 * The state is the table's source offset while the backfill runs, a flat map as Kafka Connect offsets are:
 *
 *   {"backfill.high": T0, "backfill.ranges": N,
 *    "backfill.<i>.timestamp": …, "backfill.<i>.sys_id": … (absent before the range's first row),
 *    "backfill.<i>.done": true|false}
 *
 * Each record carries the state as of its own row (ranges' rows are handled one page at a time, in queue order),
 * so the offset committed after Kafka acknowledged a record never claims a row that was not acknowledged. After a
 * restart finished ranges are not read again and the others resume from their cursors (minus the overlap).
 */
import type { SourceOffset } from "../connect/record.ts";
import { compareCursors, type Cursor, cursorFromOffset } from "./cursor.ts";
import { parseGlideDateTime } from "./glide_timestamp.ts";
import type { HighWaterMark } from "./instance_time.ts";

const OFFSET_BACKFILL_HIGH = "backfill.high";
const OFFSET_BACKFILL_RANGES = "backfill.ranges";

/** Sys ids of one range: `after < id <= atMost` compared as strings (the instance's order); null = unbounded. */
export interface IdRange {
  readonly after: string | null;
  readonly atMost: string | null;
}

const ID_SPACE = 1n << 128n;

function hex(n: bigint): string {
  return n.toString(16).padStart(32, "0");
}

/**
 * Splits the sys id space into `n` ranges of equal width over the 32-hex-digit GUIDs the instance generates (so
 * rows spread evenly). The bounds are compared as strings, so any sys id, GUID or not, falls in exactly one range.
 */
export function splitIdSpace(n: number): IdRange[] {
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`backfill ranges must be an integer >= 1, got ${n}`);
  }
  const bounds: string[] = [];
  for (let k = 1; k < n; k++) bounds.push(hex((ID_SPACE * BigInt(k)) / BigInt(n) - 1n));
  return Array.from({ length: n }, (_, k) => ({
    after: k === 0 ? null : bounds[k - 1],
    atMost: k === n - 1 ? null : bounds[k],
  }));
}

/** Whether `sysId` falls in `range` (compared as strings, as the instance does). */
export function inIdRange(sysId: string, range: IdRange): boolean {
  return (range.after === null || sysId > range.after) && (range.atMost === null || sysId <= range.atMost);
}

/** Where one range stands. */
export interface RangeProgress {
  /** The last row handled in the range, or null before its first. */
  readonly cursor: Cursor | null;
  /** The range's sweep reached the high-water mark. */
  readonly done: boolean;
}

export interface BackfillState {
  readonly high: HighWaterMark;
  readonly ranges: readonly RangeProgress[];
}

const key = (i: number, field: string) => `backfill.${i}.${field}`;

export function backfillToOffset(state: BackfillState): SourceOffset {
  const offset: Record<string, string | number | boolean> = {
    [OFFSET_BACKFILL_HIGH]: state.high.text,
    [OFFSET_BACKFILL_RANGES]: state.ranges.length,
  };
  state.ranges.forEach((r, i) => {
    if (r.cursor !== null) {
      offset[key(i, "timestamp")] = r.cursor.timestamp;
      offset[key(i, "sys_id")] = r.cursor.sysId;
    }
    offset[key(i, "done")] = r.done;
  });
  return offset;
}

/**
 * The backfill state stored in an offset; null when the offset holds none (no offset, or a plain cursor). A
 * backfill offset that does not parse is an error naming what is wrong: ignoring it would re-read the table.
 */
export function backfillFromOffset(offset: SourceOffset | null): BackfillState | null {
  if (offset === null || !(OFFSET_BACKFILL_HIGH in offset)) return null;
  const text = offset[OFFSET_BACKFILL_HIGH];
  const n = offset[OFFSET_BACKFILL_RANGES];
  const epochMs = typeof text === "string" ? parseGlideDateTime(text) : NaN;
  if (typeof text !== "string" || Number.isNaN(epochMs)) {
    throw new BackfillOffsetError(`"${OFFSET_BACKFILL_HIGH}" is not a date-time: ${JSON.stringify(text)}`);
  }
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1) {
    throw new BackfillOffsetError(`"${OFFSET_BACKFILL_RANGES}" is not an integer >= 1: ${JSON.stringify(n)}`);
  }
  const ranges = Array.from({ length: n }, (_, i): RangeProgress => {
    const ts = offset[key(i, "timestamp")], id = offset[key(i, "sys_id")];
    const cursor = ts === undefined && id === undefined
      ? null
      : cursorFromOffset({ timestamp: ts ?? null, sys_id: id ?? null });
    if (cursor === null && (ts !== undefined || id !== undefined)) {
      throw new BackfillOffsetError(`range ${i} has no valid cursor: ${JSON.stringify({ ts, id })}`);
    }
    return { cursor, done: offset[key(i, "done")] === true };
  });
  return { high: { epochMs, text }, ranges };
}

/** A stored backfill offset that cannot be read. */
export class BackfillOffsetError extends Error {
  override name = "BackfillOffsetError";
  constructor(detail: string) {
    super(`the stored source offset of a parallel backfill is invalid: ${detail}`);
  }
}

/** The running backfill: ranges move and finish; every change gives a new offset snapshot. */
export class ParallelBackfill {
  readonly high: HighWaterMark;
  readonly ids: readonly IdRange[];
  #ranges: RangeProgress[];
  #offset: SourceOffset | null = null;

  constructor(state: BackfillState) {
    this.high = state.high;
    this.ids = splitIdSpace(state.ranges.length);
    this.#ranges = [...state.ranges];
  }

  /** A new backfill of `n` ranges up to `high`. */
  static start(high: HighWaterMark, n: number): ParallelBackfill {
    return new ParallelBackfill({
      high,
      ranges: Array.from({ length: n }, () => ({ cursor: null, done: false })),
    });
  }

  range(i: number): RangeProgress {
    return this.#ranges[i];
  }

  /** Ranges still to read. */
  pending(): number[] {
    return this.#ranges.flatMap((r, i) => r.done ? [] : [i]);
  }

  get done(): boolean {
    return this.#ranges.every((r) => r.done);
  }

  /** Range `i` handled a row at `cursor` (only forward). */
  moveTo(i: number, cursor: Cursor): void {
    this.#set(i, { cursor, done: false });
  }

  /** Range `i` reached the high-water mark. */
  finish(i: number): void {
    this.#set(i, { ...this.#ranges[i], done: true });
  }

  /** The state as an offset, the same object until the state changes. */
  offset(): SourceOffset {
    return this.#offset ??= backfillToOffset({ high: this.high, ranges: this.#ranges });
  }

  /** The last row handled by any range: where the single cursor takes over (null when no range read a row). */
  handoverCursor(): Cursor | null {
    let last: Cursor | null = null;
    for (const { cursor } of this.#ranges) {
      if (cursor !== null && (last === null || compareCursors(cursor, last) > 0)) last = cursor;
    }
    return last;
  }

  #set(i: number, progress: RangeProgress): void {
    this.#ranges[i] = progress;
    this.#offset = null;
  }
}
