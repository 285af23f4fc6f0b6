/**
 * The source cursor: (value of the timestamp field, value of the sys id field) of the last row handled. Rows are
 * read in this order, so the cursor only moves forward; it is also the committed source offset.
 */
import type { SourceOffset } from "../connect/record.ts";
import { formatGlideDateTime, parseGlideDateTime } from "./glide_timestamp.ts";

export interface Cursor {
  /** `yyyy-MM-dd HH:mm:ss`, UTC, exactly as the instance returned it. */
  readonly timestamp: string;
  readonly sysId: string;
  /** `timestamp` as epoch milliseconds. */
  readonly epochMs: number;
}

/** Keys of the source offset map (Kafka Connect offsets are JSON maps). */
const OFFSET_TIMESTAMP = "timestamp";
const OFFSET_SYS_ID = "sys_id";

/**
 * Orders cursors as the instance orders `ORDERBY<ts>^ORDERBY<sys_id>`: by time, then by sys id compared
 * byte-wise (the instance's GUID collation; sys ids are lower-case hex).
 */
export function compareCursors(a: Cursor, b: Cursor): number {
  if (a.epochMs !== b.epochMs) return a.epochMs < b.epochMs ? -1 : 1;
  return a.sysId < b.sysId ? -1 : a.sysId > b.sysId ? 1 : 0;
}

export function cursorToOffset(cursor: Cursor): SourceOffset {
  return { [OFFSET_TIMESTAMP]: cursor.timestamp, [OFFSET_SYS_ID]: cursor.sysId };
}

/** The cursor stored in an offset, or null when the offset is absent or not one of ours (then it is ignored). */
export function cursorFromOffset(offset: SourceOffset | null): Cursor | null {
  if (offset === null) return null;
  const timestamp = offset[OFFSET_TIMESTAMP];
  const sysId = offset[OFFSET_SYS_ID];
  if (typeof timestamp !== "string" || typeof sysId !== "string") return null;
  const epochMs = parseGlideDateTime(timestamp);
  return Number.isNaN(epochMs) ? null : { timestamp, sysId, epochMs };
}

/** The instant `seconds` before `cursor`, as an encoded-query literal: where an overlap re-read starts. */
export function overlapStart(cursor: Cursor, seconds: number): string {
  return seconds === 0 ? cursor.timestamp : formatGlideDateTime(cursor.epochMs - seconds * 1000);
}
