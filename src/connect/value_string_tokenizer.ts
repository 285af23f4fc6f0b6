/**
 * The tokenizer under Connect's value-string reader (value_string_parser.ts): Kafka's `Values.Parser`, which
 * splits a string on the unescaped delimiters of the array, map and quoted forms, and can mark and rewind so the
 * reader can try one reading and fall back to another.
 */
import { isBlank, javaTrim } from "./java_trim.ts";

const DELIMITERS = new Set([":", ",", "{", "}", "[", "]", '"']);

/** Kafka's `Values.Parser`: a tokenizer splitting on unescaped delimiters, with mark/rewind. */
export class Tokenizer {
  #pos = 0;
  #nextToken: string | null = null;
  #previousToken: string | null = null;

  constructor(readonly original: string) {}

  position(): number {
    return this.#pos;
  }

  mark(): number {
    return this.#pos - (this.#nextToken?.length ?? 0);
  }

  rewindTo(position: number): void {
    this.#pos = position;
    this.#nextToken = null;
    this.#previousToken = null;
  }

  hasNext(): boolean {
    return this.#nextToken !== null || this.#pos < this.original.length;
  }

  previous(): string | null {
    return this.#previousToken;
  }

  next(): string {
    if (this.#nextToken !== null) {
      this.#previousToken = this.#nextToken;
      this.#nextToken = null;
    } else {
      this.#previousToken = this.#consumeToken();
    }
    return this.#previousToken;
  }

  /** The text of the next `n` tokens, or null (and no movement) if there are fewer. */
  nextTokens(n: number): string | null {
    const start = this.mark();
    for (let i = 0; i < n; i++) {
      if (!this.hasNext()) {
        this.rewindTo(start);
        return null;
      }
      this.next();
    }
    return this.original.substring(start, this.position());
  }

  /** Consumes the next non-blank token if it equals `expected` (ignoring surrounding whitespace). */
  canConsume(expected: string): boolean {
    if (this.#nextToken === null) {
      if (!this.hasNext()) return false;
      this.#nextToken = this.#consumeToken();
    }
    while (isBlank(this.#nextToken) && this.#pos < this.original.length) {
      this.#nextToken = this.#consumeToken();
    }
    if (javaTrim(this.#nextToken) === expected) {
      this.#nextToken = null;
      return true;
    }
    return false;
  }

  #consumeToken(): string {
    let escaped = false;
    const start = this.#pos;
    while (this.#pos < this.original.length) {
      const c = this.original[this.#pos];
      if (c === "\\") {
        escaped = !escaped;
      } else if (DELIMITERS.has(c)) {
        if (!escaped) {
          if (start < this.#pos) return this.original.substring(start, this.#pos);
          this.#pos++;
          return this.original.substring(start, start + 1);
        }
        escaped = false;
      } else {
        escaped = false;
      }
      this.#pos++;
    }
    return this.original.substring(start, this.#pos);
  }
}
