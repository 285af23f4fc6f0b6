/**
 * A scan of a sys id range in sys id order (keyset pages: `sys_id>after^ORDERBYsys_id`), as reconcile passes and
 * `tablesync verify` read a table, that neither stops early nor stalls where access control hides rows.
 *
 * The instance applies `sysparm_limit` before access control drops the rows the user may not read, so a short
 * page proves nothing by itself: rows may follow a page that lost some of its rows to access control. What
 * proves the range read is a count taken before access control (`X-Total-Count`) of what the page asked for: a
 * page whose count is at most its limit saw the rest of the range. A count makes the instance count the rest of
 * the range, so it is asked for only when the end may be near:
 *
 * - the first page asks for the count (the range's rows, before access control);
 * - a page that did not ask moves the estimate of the rest down by its limit (a page that was not the last
 *   passed exactly `limit` rows before access control), and continues after its last row, full or short;
 * - a page asks for the count while the estimate is at most two pages, and after an empty page;
 * - a page with its count at most its limit ends the range; above it, the scan continues after the last row, or,
 *   when the page was empty (a run of at least a page of hidden rows), probes the part of what is left where
 *   three quarters of a page would end were its counted rows spread evenly (`sys_id<cut`; sys ids are random
 *   GUIDs), cutting a probe again the same way while it is empty with its count above the limit, and once a
 *   probe's count proves it read, continues from its end.
 *
 * Without hidden rows and without changes meanwhile a range costs its raw page floor: the count's own pages are
 * pages the scan reads anyway. An instance (or a proxy) that sends no count leaves a short page as the only end
 * it can tell (`endProven` false: a reconcile pass then tombstones nothing); one that sends counts for some
 * pages and not others fails the read.
 */
import { condition } from "../instance/mod.ts";

/** What a page returned: its rows (readable ones, before any row is judged), the last sys id among them. */
export interface ScannedPage {
  readonly rows: number;
  readonly last: string | null;
  /** The count of what the page asked for, before access control; null when not asked for or not sent. */
  readonly total: number | null;
}

/** Raised when a hidden run cannot be probed past: its sys ids are not 32-hex-digit GUIDs. */
export class UnsplittableRangeError extends Error {}

const ID_DIGITS = 32;
/** The share of a page a probe of hidden rows aims at: a little under a page, so its count proves it read. */
const PROBE_TARGET = 0.75;
const ID_END = 1n << 128n;

export class SysIdScan {
  /** The last sys id read (exclusive start of the next page); null: from `lo`. */
  #after: string | null = null;
  /** While probing a hidden run: the probe's exclusive end. */
  #probeHi: string | null = null;
  /** Rows before access control still ahead (an estimate: rows changed meanwhile move it); null: unknown. */
  #estimate: number | null = null;
  #askCount = true;
  /** The last `next` asked for the count. */
  #asked = false;
  /** A page sent its count: the instance sends them. */
  #countSeen = false;
  /** The instance sent no count when asked: the end is a short page's word alone. */
  #unproven = false;

  /**
   * @param field the sys id field
   * @param lo the range's first sys id (inclusive), null from the first
   * @param hi the range's end (exclusive), null to the last
   */
  constructor(readonly field: string, readonly lo: string | null, readonly hi: string | null) {}

  /** The last sys id read, null before the first row. */
  get after(): string | null {
    return this.#after;
  }

  /**
   * False when the instance sent no count: the range ended at a short page, which rows hidden by access control
   * could have cut short (what follows it is unknown, not proven absent).
   */
  get endProven(): boolean {
    return !this.#unproven;
  }

  /** The next page's query terms and whether it asks for the count. */
  next(limit: number): { terms: string[]; count: boolean } {
    const terms: string[] = [];
    if (this.lo !== null) terms.push(condition(this.field, ">=", this.lo));
    const end = this.#probeHi ?? this.hi;
    if (end !== null) terms.push(condition(this.field, "<", end));
    if (this.#after !== null) terms.push(condition(this.field, ">", this.#after));
    this.#asked = !this.#unproven && (this.#askCount || this.#probeHi !== null ||
      (this.#estimate !== null && this.#estimate <= 2 * limit));
    return { terms, count: this.#asked };
  }

  /** Takes the page the last `next` asked for; true once the range is read to its end. */
  take(page: ScannedPage, limit: number): boolean {
    if (page.last !== null) this.#after = page.last;
    this.#askCount = false;
    if (this.#unproven) return page.rows < limit;
    if (page.total === null) {
      if (this.#asked) return this.#countMissing(page, limit);
      if (page.rows === 0) {
        // An empty page the estimate does not prove the end: asked again, with the count.
        this.#askCount = true;
        return false;
      }
      this.#estimate = Math.max(0, (this.#estimate ?? 0) - limit);
      return false;
    }
    this.#countSeen = true;
    if (page.total <= limit) {
      if (this.#probeHi === null) return true;
      // The probe is read: on from its end.
      this.#after = predecessor(this.#probeHi);
      this.#probeHi = null;
      this.#askCount = true;
      return false;
    }
    if (this.#probeHi === null) this.#estimate = page.total - limit;
    if (page.rows === 0) this.#probeHi = this.#cut(this.#probeHi ?? this.hi, page.total, limit);
    return false;
  }

  #countMissing(page: ScannedPage, limit: number): boolean {
    if (this.#countSeen) {
      throw new Error(
        "the instance sent X-Total-Count for earlier pages of this read and not for a later one: a page that " +
          "access control cut short cannot be told from the end (a proxy stripping the header?)",
      );
    }
    // Never sent: a short page is the only end there is to tell.
    this.#unproven = true;
    return page.rows < limit;
  }

  /**
   * A probe's end in what is left before `end` (exclusive), which holds `total` rows before access control:
   * where three quarters of a page would end were they spread evenly (sys ids are random GUIDs).
   */
  #cut(end: string | null, total: number, limit: number): string {
    const low = this.#after !== null ? idValue(this.#after) : this.lo !== null ? idValue(this.lo) - 1n : -1n;
    const high = end === null ? ID_END : idValue(end);
    // A probe must hold a sys id and end before `end`, or the scan would not move.
    if (high - low <= 2n) throw new UnsplittableRangeError(`no sys id lies between ${hex(low)} and ${end}`);
    const millionths = BigInt(Math.max(1, Math.floor((PROBE_TARGET * limit * 1e6) / total)));
    const cut = low + ((high - low) * millionths) / 1_000_000n;
    return hex(cut < low + 2n ? low + 2n : cut >= high ? high - 1n : cut);
  }
}

/** A sys id (or a range bound, a prefix of one) as a number of 32 hex digits; bounds are padded with zeros. */
function idValue(id: string): bigint {
  if (!/^[0-9a-f]{1,32}$/.test(id)) {
    throw new UnsplittableRangeError(
      `more rows than a page are hidden by access control after sys id ${id}, and sys ids that are not ` +
        `32-hex-digit GUIDs cannot be probed past; raise the batch size above the hidden run`,
    );
  }
  return BigInt(`0x${id.padEnd(ID_DIGITS, "0")}`);
}

function hex(n: bigint): string {
  return n.toString(16).padStart(ID_DIGITS, "0");
}

/** The sys id right before `id`: `sys_id>predecessor(id)` reads from `id` on. */
function predecessor(id: string): string {
  return hex(idValue(id) - 1n);
}
