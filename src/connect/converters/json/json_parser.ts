/**
 * A strict JSON parser producing `JsonNode`s (exact numbers), with Jackson's defaults: no comments, no trailing
 * commas, no leading zeros, no NaN; duplicate object keys keep the last value; at most 1000 levels of nesting and
 * 1000-character numbers (Jackson's `StreamReadConstraints`). Empty or whitespace-only input is a "missing" node,
 * as Jackson's `readTree` returns for no content. Unlike Jackson's `readTree`, text after the first value is an
 * error rather than silently ignored.
 */
import type { JsonNode } from "./json_node.ts";

class JsonParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonParseError";
  }
}

const MAX_DEPTH = 1000;
const MAX_NUMBER_LENGTH = 1000;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

export function parseJson(text: string): JsonNode {
  return new Parser(text).document();
}

class Parser {
  #pos = 0;

  constructor(readonly text: string) {}

  document(): JsonNode {
    if (this.text.charCodeAt(0) === 0xfeff) this.#pos = 1; // byte-order mark
    this.#skipWhitespace();
    if (this.#pos >= this.text.length) return { kind: "missing" };
    const node = this.#value(0);
    this.#skipWhitespace();
    if (this.#pos < this.text.length) this.#fail("Unexpected content after the JSON value");
    return node;
  }

  #fail(message: string): never {
    throw new JsonParseError(`${message} at position ${this.#pos}`);
  }

  #skipWhitespace(): void {
    while (this.#pos < this.text.length) {
      const c = this.text.charCodeAt(this.#pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      this.#pos++;
    }
  }

  #literal(word: string): void {
    if (!this.text.startsWith(word, this.#pos)) this.#fail("Unrecognized token");
    this.#pos += word.length;
  }

  #value(depth: number): JsonNode {
    if (depth > MAX_DEPTH) this.#fail(`Document nesting depth exceeds the maximum allowed (${MAX_DEPTH})`);
    const c = this.text[this.#pos];
    switch (c) {
      case "{":
        return this.#object(depth);
      case "[":
        return this.#array(depth);
      case '"':
        return { kind: "string", value: this.#string() };
      case "t":
        this.#literal("true");
        return { kind: "boolean", value: true };
      case "f":
        this.#literal("false");
        return { kind: "boolean", value: false };
      case "n":
        this.#literal("null");
        return { kind: "null" };
      default:
        return this.#number();
    }
  }

  #number(): JsonNode {
    NUMBER.lastIndex = this.#pos;
    const m = NUMBER.exec(this.text);
    if (m === null) {
      this.#fail(this.#pos >= this.text.length ? "Unexpected end of input" : "Unexpected character");
    }
    const text = m[0];
    if (text.length > MAX_NUMBER_LENGTH) {
      this.#fail(`Number length exceeds the maximum (${MAX_NUMBER_LENGTH})`);
    }
    const after = this.text[this.#pos + text.length];
    if (after !== undefined && /[0-9A-Za-z.+-]/.test(after)) this.#fail("Invalid number");
    this.#pos += text.length;
    return { kind: "number", text, integral: !/[.eE]/.test(text) };
  }

  #string(): string {
    this.#pos++; // opening quote
    let out = "";
    let runStart = this.#pos;
    while (true) {
      if (this.#pos >= this.text.length) this.#fail("Unexpected end of input in a string");
      const code = this.text.charCodeAt(this.#pos);
      if (code === 0x22) {
        out += this.text.slice(runStart, this.#pos);
        this.#pos++;
        return out;
      }
      if (code < 0x20) this.#fail("Illegal unquoted control character in a string");
      if (code === 0x5c) {
        out += this.text.slice(runStart, this.#pos);
        const e = this.text[this.#pos + 1];
        if (e === "u") {
          const hex = this.text.slice(this.#pos + 2, this.#pos + 6);
          if (!/^[0-9A-Fa-f]{4}$/.test(hex)) this.#fail("Invalid \\u escape");
          out += String.fromCharCode(parseInt(hex, 16));
          this.#pos += 6;
        } else if (e !== undefined && e in ESCAPES) {
          out += ESCAPES[e];
          this.#pos += 2;
        } else {
          this.#fail("Unrecognized character escape");
        }
        runStart = this.#pos;
        continue;
      }
      this.#pos++;
    }
  }

  #array(depth: number): JsonNode {
    this.#pos++;
    const items: JsonNode[] = [];
    this.#skipWhitespace();
    if (this.text[this.#pos] === "]") {
      this.#pos++;
      return { kind: "array", items };
    }
    while (true) {
      this.#skipWhitespace();
      items.push(this.#value(depth + 1));
      this.#skipWhitespace();
      const c = this.text[this.#pos++];
      if (c === "]") return { kind: "array", items };
      if (c !== ",") this.#fail("Expected ',' or ']' in an array");
    }
  }

  #object(depth: number): JsonNode {
    const start = this.#pos;
    this.#pos++;
    const fields = new Map<string, JsonNode>();
    this.#skipWhitespace();
    if (this.text[this.#pos] === "}") {
      this.#pos++;
      return { kind: "object", fields, source: this.text.slice(start, this.#pos) };
    }
    while (true) {
      this.#skipWhitespace();
      if (this.text[this.#pos] !== '"') this.#fail("Expected a field name in double quotes");
      const key = this.#string();
      this.#skipWhitespace();
      if (this.text[this.#pos++] !== ":") this.#fail("Expected ':' after a field name");
      this.#skipWhitespace();
      fields.set(key, this.#value(depth + 1));
      this.#skipWhitespace();
      const c = this.text[this.#pos++];
      if (c === "}") return { kind: "object", fields, source: this.text.slice(start, this.#pos) };
      if (c !== ",") this.#fail("Expected ',' or '}' in an object");
    }
  }
}
