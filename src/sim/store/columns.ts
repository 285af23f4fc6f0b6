/**
 * Column storage. A million incident rows of ~85 fields must fit comfortably in memory, so values are not
 * kept as one object per row: low-cardinality fields (choices, booleans, references, generated texts) are
 * dictionary-encoded with codes that start as bytes and widen only when a column's distinct values outgrow
 * them; date-times are epoch seconds in a Float64Array; unique strings (sys_id, number) are a plain array.
 */
import { formatGlideDate, formatGlideDateTime, parseGlideDateTime } from "../glide_time.ts";
import type { FieldDef } from "../schema/fields.ts";

export interface Column {
  get(row: number): string;
  set(row: number, value: string): void;
  /** Makes room for rows [0, capacity). */
  grow(capacity: number): void;
  /** Epoch seconds for time columns (NaN when empty); undefined for other columns. */
  readonly seconds?: (row: number) => number;
  /** The value as a JSON string literal, when the column can give it cheaper than JSON.stringify. */
  readonly json?: (row: number) => string;
}

type Codes = Uint8Array | Uint16Array | Uint32Array;

class DictionaryColumn implements Column {
  #codes: Codes;
  #pool: string[] = [""];
  /** JSON literals of the pool's values, so rendering a page does not re-escape the same strings. */
  #jsonPool: string[] = ['""'];
  #lookup = new Map<string, number>([["", 0]]);
  readonly json: (row: number) => string;

  constructor(capacity: number) {
    this.#codes = new Uint8Array(capacity);
    this.json = (row) => this.#jsonPool[this.#codes[row]];
  }

  get(row: number): string {
    return this.#pool[this.#codes[row]];
  }

  set(row: number, value: string): void {
    // codeOf may widen the codes into a new array: read #codes after it, or the value lands in the old one.
    const code = this.codeOf(value);
    this.#codes[row] = code;
  }

  /** The code of a value, adding it to the pool (and widening the codes) when new. */
  codeOf(value: string): number {
    let code = this.#lookup.get(value);
    if (code === undefined) {
      code = this.#pool.length;
      this.#pool.push(value);
      this.#jsonPool.push(JSON.stringify(value));
      this.#lookup.set(value, code);
      if (code === 256 && this.#codes instanceof Uint8Array) this.#codes = Uint16Array.from(this.#codes);
      else if (code === 65536 && this.#codes instanceof Uint16Array) {
        this.#codes = Uint32Array.from(this.#codes);
      }
    }
    return code;
  }

  setCode(row: number, code: number): void {
    this.#codes[row] = code;
  }

  grow(capacity: number): void {
    if (capacity <= this.#codes.length) return;
    const next = new (this.#codes.constructor as { new (n: number): Codes })(capacity);
    next.set(this.#codes);
    this.#codes = next;
  }
}

class UniqueStringColumn implements Column {
  #values: string[] = [];

  get(row: number): string {
    return this.#values[row] ?? "";
  }

  set(row: number, value: string): void {
    this.#values[row] = value;
  }

  grow(_capacity: number): void {}
}

/** glide_date_time / glide_date / glide_duration, stored as epoch seconds (NaN = empty). */
export class TimeColumn implements Column {
  #secs: Float64Array;
  readonly seconds: (row: number) => number;
  readonly json: (row: number) => string;
  #dateOnly: boolean;

  constructor(capacity: number, dateOnly: boolean) {
    this.#secs = new Float64Array(capacity).fill(NaN);
    this.#dateOnly = dateOnly;
    this.seconds = (row) => this.#secs[row];
    // Formatted date-times never contain characters that JSON escapes.
    this.json = (row) => '"' + this.get(row) + '"';
  }

  get(row: number): string {
    const s = this.#secs[row];
    return this.#dateOnly ? formatGlideDate(s) : formatGlideDateTime(s);
  }

  /** Unparseable values are stored as empty, as the instance does with invalid date-times. */
  set(row: number, value: string): void {
    this.#secs[row] = value === "" ? NaN : parseGlideDateTime(value);
  }

  setSeconds(row: number, secs: number): void {
    this.#secs[row] = secs;
  }

  grow(capacity: number): void {
    if (capacity <= this.#secs.length) return;
    const next = new Float64Array(capacity).fill(NaN);
    next.set(this.#secs);
    this.#secs = next;
  }
}

/** Journal fields accept writes but read back "" (history lives in sys_journal_field on the instance). */
class JournalColumn implements Column {
  get(): string {
    return "";
  }
  set(): void {}
  grow(): void {}
}

export function columnFor(def: FieldDef, capacity: number): Column {
  switch (def.type) {
    case "glide_date_time":
    case "glide_duration":
      return new TimeColumn(capacity, false);
    case "glide_date":
      return new TimeColumn(capacity, true);
    case "journal_input":
      return new JournalColumn();
    default:
      return def.unique ? new UniqueStringColumn() : new DictionaryColumn(capacity);
  }
}
