/**
 * Windows of a sweep in cursor order `(timestamp, sys id)`: where a page starts (exclusive of what came before),
 * where it ends (inclusive), and how to cut a window when a page of it came back empty while its count (taken
 * before access control) says more rows exist than one page covers.
 *
 * A window is cut by time first (whole seconds); a window inside one second is cut by sys id range (the numeric
 * range of the 32-hex-digit GUIDs the instance uses). The cut is placed where the count says a page's worth of
 * rows ends if the rows were spread evenly (`fraction`: the share of the window to keep), and after a window was
 * proven covered the next probe is as much wider as the covered window's count says it can be (`growth`). The ends
 * of the windows a sweep proved covered are hints for the next sweep, which tries them before cutting (hintInside).
 */
import type { Cursor } from "./cursor.ts";
import { formatGlideDateTime, parseGlideDateTime } from "./glide_timestamp.ts";

/** Where a page starts: every row at or after a second, or every row strictly after a cursor key. */
export type PageStart =
  | { readonly kind: "from"; readonly timestamp: string }
  | { readonly kind: "after"; readonly timestamp: string; readonly sysId: string };

/** Where a page ends, inclusive: the end of a second, or a cursor key. */
export type PageEnd =
  | { readonly kind: "through"; readonly timestamp: string }
  | { readonly kind: "at"; readonly timestamp: string; readonly sysId: string };

const SYS_ID = /^[0-9a-f]{32}$/;
const ID_MAX = (1n << 128n) - 1n;

/** Raised when a window with more rows than a page cannot be cut: it lies inside one second with non-GUID sys ids. */
export class UnsplittableWindowError extends Error {}

function seconds(timestamp: string): number {
  return parseGlideDateTime(timestamp) / 1000;
}

function at(sec: number): string {
  return formatGlideDateTime(sec * 1000);
}

function hexOf(n: bigint): string {
  return n.toString(16).padStart(32, "0");
}

/** The numeric value of a sys id in its second; null when it is not a 32-hex-digit GUID. */
function idValue(sysId: string): bigint | null {
  return SYS_ID.test(sysId) ? BigInt(`0x${sysId}`) : null;
}

/** The exclusive lower id of a window inside `sec` (-1: the whole second). */
function lowerId(start: PageStart, sec: number): bigint | null {
  if (start.kind === "from" || seconds(start.timestamp) < sec) return -1n;
  return idValue(start.sysId);
}

/** The inclusive upper id of a window inside `sec`. */
function upperId(end: PageEnd): bigint | null {
  return end.kind === "through" ? ID_MAX : idValue(end.sysId);
}

/** The position right after `end`: the next page starts there. */
export function startAfter(end: PageEnd): PageStart {
  return end.kind === "through"
    ? { kind: "from", timestamp: at(seconds(end.timestamp) + 1) }
    : { kind: "after", timestamp: end.timestamp, sysId: end.sysId };
}

/** True when the window `(start, end]` is not empty as a key range. */
function endsAfter(start: PageStart, end: PageEnd): boolean {
  const s = seconds(start.timestamp), e = seconds(end.timestamp);
  if (start.kind === "from" || e !== s) return e >= s;
  return end.kind === "through" || end.sysId > start.sysId;
}

/**
 * Tells whether a row at a cursor lies at or before `end`, i.e. inside a page that ends there (`end`'s second is
 * parsed once, not per row). A row of a page beyond its end changed after the page was queried (the instance
 * renders a page's rows after it picked them): the page does not say where it is.
 */
export function atOrBefore(end: PageEnd): (cursor: Cursor) => boolean {
  const e = seconds(end.timestamp);
  return (cursor) => {
    const c = Math.floor(cursor.epochMs / 1000);
    if (c !== e) return c < e;
    return end.kind === "through" || cursor.sysId <= end.sysId;
  };
}

/** True when `end` is at or after `limit` (both inclusive upper bounds). */
function reaches(end: PageEnd, limit: PageEnd): boolean {
  const a = seconds(end.timestamp), b = seconds(limit.timestamp);
  if (a !== b) return a > b;
  if (limit.kind === "through") return end.kind === "through";
  return end.kind === "through" || end.sysId >= limit.sysId;
}

/** `n` times `f` (0 <= f), for sys id arithmetic. */
function scaled(n: bigint, f: number): bigint {
  const ONE = 1n << 20n;
  return n * BigInt(Math.round(f * Number(ONE))) / ONE;
}

/**
 * A smaller end for the window `(start, end]`: `fraction` (0 < fraction < 1) of its seconds, or, inside one
 * second, of its sys id range. The new window is never empty as a key range and always strictly smaller.
 */
export function splitWindow(start: PageStart, end: PageEnd, fraction = 0.5): PageEnd {
  const low = seconds(start.timestamp), high = seconds(end.timestamp);
  if (low < high) return { kind: "through", timestamp: at(Math.floor(low + (high - low) * fraction)) };
  const lo = lowerId(start, high), hi = upperId(end);
  if (lo === null || hi === null) {
    throw new UnsplittableWindowError(
      `more rows than a page in ${end.timestamp} are hidden by access control and their sys ids are not ` +
        `32-hex-digit GUIDs, so the second cannot be split; raise the batch size above the hidden run`,
    );
  }
  if (hi - lo <= 1n) {
    throw new UnsplittableWindowError(`the count of one sys id in ${end.timestamp} exceeds the page size`);
  }
  const cut = lo + scaled(hi - lo, fraction);
  return {
    kind: "at",
    timestamp: end.timestamp,
    sysId: hexOf(cut <= lo ? lo + 1n : cut >= hi ? hi - 1n : cut),
  };
}

/**
 * The end of the probe after the covered window `(start, end]`: `growth` times as wide (in seconds, or in sys id
 * range inside one second), never beyond `high`.
 */
export function widerEnd(start: PageStart, end: PageEnd, high: PageEnd, growth = 2): PageEnd {
  const endSec = seconds(end.timestamp);
  let next: PageEnd;
  if (end.kind === "at") {
    const lo = lowerId(start, endSec), hi = idValue(end.sysId);
    const target = lo === null || hi === null ? ID_MAX : hi + scaled(hi - lo, growth);
    next = target >= ID_MAX ? { kind: "through", timestamp: end.timestamp } : {
      kind: "at",
      timestamp: end.timestamp,
      sysId: hexOf(hi !== null && target <= hi ? hi + 1n : target),
    };
  } else {
    // The seconds the covered window touched, counting its first (possibly partial) one.
    const width = endSec - seconds(start.timestamp) + 1;
    next = { kind: "through", timestamp: at(endSec + Math.max(1, Math.round(growth * width))) };
  }
  return reaches(next, high) ? high : next;
}

/** The first of `hints` (ends in cursor order) that cuts `(start, end]` into a non-empty part and a rest. */
export function hintInside(hints: readonly PageEnd[], start: PageStart, end: PageEnd): PageEnd | null {
  for (const hint of hints) {
    if (reaches(hint, end)) return null;
    if (endsAfter(start, hint)) return hint;
  }
  return null;
}
