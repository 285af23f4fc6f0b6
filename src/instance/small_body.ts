/**
 * A small answer of declared length (a write's answer, a lookup) read whole in one step: `Response.bytes()`,
 * which for fetch's bodies is one read of the runtime's to the end, rather than capped_body.ts's reads into a
 * 16 KiB buffer of ours (two reads, each its own turn of the event loop and its own stall timer, and 16 KiB of
 * garbage per answer of a hundred bytes). Per request of the sink, that was most of the work between the
 * answer's headers and the permit's release.
 *
 * What capped_body.ts guards stays guarded: the size, since the length is declared, uncompressed (fetch cannot
 * deliver more than it) and within the limit; a stall, as the whole body not arriving within the idle time,
 * which for at most SMALL_BODY_BYTES is the same as no data for that long.
 */
import { readWithin } from "./capped_body.ts";

/** Bodies up to this size (declared, uncompressed) are read whole. */
export const SMALL_BODY_BYTES = 65_536;

/** True when `response` declares an uncompressed body of at most SMALL_BODY_BYTES and `maxBytes`. */
export function isSmallBody(response: Response, maxBytes: number): boolean {
  const { headers } = response;
  const length = headers.get("content-length");
  if (length === null) return false;
  const encoding = headers.get("content-encoding");
  if (encoding !== null && encoding !== "identity") return false;
  const declared = Number(length);
  return declared >= 0 && declared <= SMALL_BODY_BYTES && declared <= maxBytes;
}

/**
 * Reads a body `isSmallBody` accepted. A stall rejects with `BodyStalledError` and calls `drop`, which must let
 * go of the body (abort the request's signal: the body stream is locked while it is read).
 */
export function readSmallBody(
  response: Response,
  idleMs: number,
  drop: () => void,
): Promise<Uint8Array> {
  return readWithin(() => response.bytes(), drop, idleMs);
}
