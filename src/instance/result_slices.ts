/**
 * The rows of a `{"result":[…]}` body, parsed a slice of about `sliceBytes` at a time, so that a 10 MB page
 * never exists as one 10 MB string plus one array of 5000 parsed rows: each slice is decoded and parsed
 * (JSON.parse, native) when the caller asks for it and is garbage once the caller has turned it into records.
 *
 * Where one row ends is found without tokenising in JavaScript: a candidate cut is a `}` followed by `,` and `{`
 * (whitespace allowed between them), searched from the slice's target end, and the slice `[` + text + `]` is
 * parsed. A cut that is not a boundary between two rows of the array (inside a string, or inside a nested
 * object or array) leaves an unterminated string or unclosed brackets, so the parse fails and the next
 * candidate is tried; a cut that parses is a row boundary. (A pure-JavaScript streaming tokeniser such as
 * @streamparser/json would visit every byte in JavaScript: several times JSON.parse's CPU for the same rows.)
 *
 * A slice of valid UTF-8 also tells each row's bytes (rememberRowSources): a schemaless
 * row whose bytes are what the JSON converter would write is handed on as they are (common/verbatim_json.ts).
 *
 * Only a body of exactly that shape is sliced (the envelope's opening and closing checked before any row is
 * handed out, so a body cut off by the instance's transaction quota is refused whole, as before); for any other
 * body `resultSlices` returns null and the caller parses it whole.
 */
import { rememberJsonSource } from "../common/verbatim_json.ts";
import type { TableRow } from "./table_rows.ts";

/**
 * Bytes of JSON per slice by default: 50 rows of 2 KB. Small enough that a slice's text is a young-generation
 * string (V8 puts strings over 128 KB straight into its old space) and that its rows, parsed into a few times
 * their JSON's size, are converted and dead before V8's young generation (4 MB semi-spaces with the daemon's
 * flags) fills: with slices of 1 MB, half of what the task allocated survived a scavenge (copied, then
 * promoted), and scavenges were the task's largest cost. The driver groups the records of many slices into one
 * send (source_driver.ts), so smaller slices do not mean more requests.
 */
const SLICE_BYTES = 100_000;

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const RESULT = new TextEncoder().encode('"result"');

/** The body is not valid JSON after all (found while slicing, after earlier slices were handed out). */
export class BrokenResultError extends Error {
  override name = "BrokenResultError";
}

/**
 * The result array's rows in slices of about `sliceBytes`, or null when the body is not of the shape
 * `{"result":[…]}` (then parse it whole). The body must stay unchanged while the slices are read.
 */
export function resultSlices(body: Uint8Array, sliceBytes = SLICE_BYTES): Iterable<TableRow[]> | null {
  const open = arrayOpening(body);
  if (open < 0) return null;
  const close = arrayClosing(body);
  if (close < open) return null;
  return sliceRows(body, skipSpace(body, open), close, sliceBytes);
}

/** What the end of a result array tells before its rows are parsed (resultEnd). */
export interface ResultEnd {
  /** At least the number of rows: every boundary between two rows is counted, and a rare false one (inside a string). */
  readonly rowsAtMost: number;
  /** The array's last row, or null when it is empty or its start could not be told. */
  readonly last: TableRow | null;
}

/** Row starts tried from the end when looking for the last row (a false candidate fails to parse). */
const LAST_ROW_TRIES = 8;

/**
 * How many rows the result array holds at most and its last row, read from the body's end without parsing the
 * others (the same candidate cuts as the slices); null when the body is not of the shape `{"result":[…]}`. What
 * a caller does with it must not depend on it being right (a guess about the page, checked once it is parsed).
 */
export function resultEnd(body: Uint8Array): ResultEnd | null {
  const open = arrayOpening(body);
  if (open < 0) return null;
  const close = arrayClosing(body);
  if (close < open) return null;
  const from = skipSpace(body, open);
  if (from >= close) return { rowsAtMost: 0, last: null };
  const cuts: number[] = [];
  for (let i = nextCandidate(body, from, close); i >= 0; i = nextCandidate(body, i + 1, close)) cuts.push(i);
  const decoder = new TextDecoder();
  let last: TableRow | null = null;
  for (let k = cuts.length - 1; k >= Math.max(0, cuts.length - LAST_ROW_TRIES) && last === null; k--) {
    const start = skipSpace(body, body.indexOf(COMMA, cuts[k] + 1) + 1);
    const rows = parseSlice(decoder.decode(body.subarray(start, close)));
    if (rows !== null && rows.length === 1) last = rows[0];
  }
  // Every candidate tried was false (inside the strings of a first and only row): the array from its start.
  if (last === null && cuts.length <= LAST_ROW_TRIES) {
    last = parseSlice(decoder.decode(body.subarray(from, close)))?.at(-1) ?? null;
  }
  return { rowsAtMost: cuts.length + 1, last };
}

function* sliceRows(body: Uint8Array, from: number, end: number, sliceBytes: number): Generator<TableRow[]> {
  const decoder = new TextDecoder();
  let start = from;
  while (start < end) {
    let cut = start + sliceBytes;
    let rows: TableRow[] | null = null;
    let next = end;
    while (rows === null) {
      const candidate = cut < end ? nextCandidate(body, cut, end) : -1;
      const stop = candidate < 0 ? end : candidate + 1;
      const parsed = parseBracketed(body, start, stop, decoder);
      rows = parsed?.rows ?? null;
      if (parsed === null) {
        if (candidate < 0) throw new BrokenResultError("the result array is not valid JSON");
        cut = stop;
        continue;
      }
      next = candidate < 0 ? end : skipSpace(body, body.indexOf(COMMA, stop) + 1);
      rememberRowSources(body, start, stop, parsed.rows, parsed.text);
    }
    start = next;
    yield rows;
  }
}

/**
 * Rows of `body[start, stop)` (rows separated by commas) and their text, or null when it does not parse as
 * such. The bytes just
 * outside the slice (the array's `[`, a comma or whitespace before it; a comma, whitespace or the array's `]`
 * after it) are set to `[` and `]` while it is decoded, then restored: the text is decoded as an array
 * directly, not decoded and then copied once more into `[` + text + `]` (a third of what parsing allocated).
 */
function parseBracketed(
  body: Uint8Array,
  start: number,
  stop: number,
  decoder: TextDecoder,
): { rows: TableRow[]; text: string } | null {
  const before = body[start - 1];
  const after = body[stop];
  body[start - 1] = OPEN_BRACKET;
  body[stop] = CLOSE_BRACKET;
  let text: string;
  try {
    text = decoder.decode(body.subarray(start - 1, stop + 1));
  } finally {
    body[start - 1] = before;
    body[stop] = after;
  }
  let rows: TableRow[];
  try {
    rows = JSON.parse(text);
  } catch {
    return null;
  }
  return { rows, text };
}

/**
 * Remembers each row's bytes (a view of the body, verbatim_json.ts) of a slice of valid UTF-8 (`text`, decoded
 * from `[` + the slice + `]`, has no character replaced) whose candidate cuts are exactly the boundaries between
 * its rows (a cut inside a string would shift every row after it: then no row's bytes are remembered).
 */
function rememberRowSources(
  body: Uint8Array,
  start: number,
  stop: number,
  rows: TableRow[],
  text: string,
): void {
  if (rows.length === 0 || text.includes("\uFFFD")) return;
  // As many characters as bytes: every byte is ASCII (any other character takes more bytes than UTF-16 units).
  const ascii = text.length === stop - start + 2;
  const lastClose = skipSpaceBack(body, stop - 1);
  const cuts: number[] = [];
  for (let i = nextCandidate(body, start, lastClose); i >= 0; i = nextCandidate(body, i + 1, lastClose)) {
    if (cuts.push(i) >= rows.length) return;
  }
  if (cuts.length !== rows.length - 1) return;
  let from = start;
  for (let k = 0; k < rows.length; k++) {
    const close = k < cuts.length ? cuts[k] : lastClose;
    const row = rows[k];
    if (typeof row === "object" && row !== null) {
      rememberJsonSource(row, body.subarray(from, close + 1), ascii);
    }
    if (k < cuts.length) from = skipSpace(body, body.indexOf(COMMA, close + 1) + 1);
  }
}

/** Rows of `text` (rows separated by commas), or null when it does not parse as such. */
function parseSlice(text: string): TableRow[] | null {
  try {
    return JSON.parse(`[${text}]`);
  } catch {
    return null;
  }
}

/** The next `}` at or after `from`, before `end`, followed by `,` and `{` (whitespace between); -1 if none. */
function nextCandidate(body: Uint8Array, from: number, end: number): number {
  for (let i = body.indexOf(CLOSE_BRACE, from); i >= 0 && i < end; i = body.indexOf(CLOSE_BRACE, i + 1)) {
    const comma = skipSpace(body, i + 1);
    if (body[comma] === COMMA && body[skipSpace(body, comma + 1)] === OPEN_BRACE) return i;
  }
  return -1;
}

/** Just after `{ "result" : [` (whitespace allowed), or -1 when the body does not start that way. */
function arrayOpening(body: Uint8Array): number {
  let i = skipSpace(body, 0);
  if (body[i] !== OPEN_BRACE) return -1;
  i = skipSpace(body, i + 1);
  for (let k = 0; k < RESULT.length; k++) if (body[i + k] !== RESULT[k]) return -1;
  i = skipSpace(body, i + RESULT.length);
  if (body[i] !== COLON) return -1;
  i = skipSpace(body, i + 1);
  return body[i] === OPEN_BRACKET ? i + 1 : -1;
}

/** The index of the `]` of a body ending in `] }` (whitespace allowed), or -1. */
function arrayClosing(body: Uint8Array): number {
  let i = skipSpaceBack(body, body.length - 1);
  if (body[i] !== CLOSE_BRACE) return -1;
  i = skipSpaceBack(body, i - 1);
  return body[i] === CLOSE_BRACKET ? i : -1;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(body: Uint8Array, i: number): number {
  while (i < body.length && isSpace(body[i])) i++;
  return i;
}

function skipSpaceBack(body: Uint8Array, i: number): number {
  while (i >= 0 && isSpace(body[i])) i--;
  return i;
}
