/**
 * A parser for .proto text as the registry stores it. It reads what describes data (syntax, package, imports,
 * messages, enums, fields, maps, oneofs, field options) and skips what does not (file and message options,
 * services, extensions, reserved ranges). Throws `DataException` with the line of a syntax error.
 */
import { DataException } from "../../errors.ts";
import type { ProtoEnum, ProtoField, ProtoFile, ProtoMessage } from "./proto_model.ts";

interface Token {
  readonly text: string;
  readonly line: number;
  /** True for string literals (their text is unquoted). */
  readonly quoted: boolean;
}

const TOKEN =
  /\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|[A-Za-z_.][A-Za-z0-9_.]*|[-+]?[0-9][A-Za-z0-9_.+-]*|[{}[\]()<>;=,:-]/y;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const start = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (m === null) {
      throw new DataException(
        `Invalid .proto text at line ${line}: ${JSON.stringify(text.slice(start, start + 20))}`,
      );
    }
    const raw = m[0];
    if (m[1] !== undefined || m[2] !== undefined) {
      tokens.push({ text: JSON.parse(`"${(m[1] ?? m[2]).replace(/\\'/g, "'")}"`), line, quoted: true });
    } else if (!/^\s/.test(raw) && !raw.startsWith("//") && !raw.startsWith("/*")) {
      tokens.push({ text: raw, line, quoted: false });
    }
    line += raw.split("\n").length - 1;
  }
  return tokens;
}

class Parser {
  #pos = 0;
  #syntax: "proto2" | "proto3" = "proto2";

  constructor(private readonly tokens: Token[]) {}

  #peek(): Token | undefined {
    return this.tokens[this.#pos];
  }

  #next(): Token {
    const token = this.tokens[this.#pos++];
    if (token === undefined) throw new DataException("Unexpected end of .proto text");
    return token;
  }

  #expect(text: string): void {
    const token = this.#next();
    if (token.quoted || token.text !== text) {
      throw new DataException(
        `Expected "${text}" at line ${token.line} of the .proto text, found "${token.text}"`,
      );
    }
  }

  #accept(text: string): boolean {
    const token = this.#peek();
    if (token !== undefined && !token.quoted && token.text === text) {
      this.#pos++;
      return true;
    }
    return false;
  }

  /** Skips a statement up to its `;`, or a balanced `{ ... }` block. */
  #skipStatement(): void {
    let depth = 0;
    for (;;) {
      const token = this.#next();
      if (token.quoted) continue;
      if (token.text === "{") depth++;
      else if (token.text === "}") {
        depth--;
        if (depth === 0) {
          this.#accept(";");
          return;
        }
      } else if (token.text === ";" && depth === 0) return;
    }
  }

  file(): ProtoFile {
    let pkg: string | null = null;
    const imports: string[] = [];
    const messages: ProtoMessage[] = [];
    const enums: ProtoEnum[] = [];
    while (this.#peek() !== undefined) {
      const token = this.#next();
      switch (token.text) {
        case "syntax":
        case "edition": {
          this.#expect("=");
          const value = this.#next().text;
          this.#syntax = value === "proto3" ? "proto3" : "proto2";
          this.#expect(";");
          break;
        }
        case "package":
          pkg = this.#next().text;
          this.#expect(";");
          break;
        case "import":
          if (this.#peek()?.text === "public" || this.#peek()?.text === "weak") this.#next();
          imports.push(this.#next().text);
          this.#expect(";");
          break;
        case "message":
          messages.push(this.#message(pkg ?? ""));
          break;
        case "enum":
          enums.push(this.#enum(pkg ?? ""));
          break;
        case ";":
          break;
        default:
          this.#skipStatement();
      }
    }
    return { syntax: this.#syntax, package: pkg, imports, messages, enums };
  }

  #message(scope: string): ProtoMessage {
    const name = this.#next().text;
    const fullName = scope === "" ? name : `${scope}.${name}`;
    const message: ProtoMessage = { kind: "message", name, fullName, fields: [], messages: [], enums: [] };
    this.#expect("{");
    this.#body(message, null);
    return message;
  }

  /** Reads members until the closing `}`; `oneof` is the enclosing oneof's name. */
  #body(message: ProtoMessage, oneof: string | null): void {
    while (!this.#accept("}")) {
      const token = this.#peek()!;
      switch (token.text) {
        case "message":
          this.#next();
          message.messages.push(this.#message(message.fullName));
          break;
        case "enum":
          this.#next();
          message.enums.push(this.#enum(message.fullName));
          break;
        case "oneof": {
          this.#next();
          const name = this.#next().text;
          this.#expect("{");
          this.#body(message, name);
          break;
        }
        case "option":
        case "reserved":
        case "extensions":
        case "extend":
          this.#next();
          this.#skipStatement();
          break;
        case ";":
          this.#next();
          break;
        default:
          message.fields.push(this.#field(oneof));
      }
    }
  }

  #field(oneof: string | null): ProtoField {
    let label: ProtoField["label"] = null;
    const first = this.#peek()!.text;
    if (first === "optional" || first === "required" || first === "repeated") {
      label = first;
      this.#next();
    }
    let type: string;
    let map: ProtoField["map"] = null;
    if (this.#accept("map")) {
      this.#expect("<");
      const key = this.#next().text;
      this.#expect(",");
      const value = this.#next().text;
      this.#expect(">");
      map = { key, value };
      type = "map";
    } else {
      type = this.#next().text;
    }
    const name = this.#next().text;
    this.#expect("=");
    const numberToken = this.#next();
    const number = Number(numberToken.text);
    if (!Number.isInteger(number) || number <= 0) {
      throw new DataException(`Invalid field number ${numberToken.text} at line ${numberToken.line}`);
    }
    const params = new Map<string, string>();
    let packed: boolean | null = null;
    if (this.#accept("[")) {
      do {
        const option = this.#optionName();
        this.#expect("=");
        const value = this.#value();
        if (option === "(confluent.field_meta)" || option === "(confluent.field_meta).params") {
          const list = option.endsWith(".params") ? value : (value as Record<string, unknown>)?.params;
          for (const entry of Array.isArray(list) ? list : list === undefined ? [] : [list]) {
            const { key, value: v } = entry as { key?: unknown; value?: unknown };
            if (key !== undefined) params.set(String(key), String(v ?? ""));
          }
        } else if (option === "packed") {
          packed = value === "true" || value === true;
        }
      } while (this.#accept(","));
      this.#expect("]");
    }
    this.#expect(";");
    return { name, number, label, type, map, params, oneof, packed };
  }

  #optionName(): string {
    let name = "";
    if (this.#accept("(")) {
      name = `(${this.#next().text})`;
      this.#expect(")");
    } else name = this.#next().text;
    while (this.#peek()?.text.startsWith(".") && !this.#peek()!.quoted) name += this.#next().text;
    return name;
  }

  /** An option value: a scalar token, a string, an aggregate `{ k: v ... }` or a list `[a, b]`. */
  #value(): unknown {
    const token = this.#next();
    if (token.quoted) {
      let text = token.text;
      while (this.#peek()?.quoted) text += this.#next().text; // adjacent literals concatenate
      return text;
    }
    if (token.text === "{") {
      const out: Record<string, unknown> = {};
      while (!this.#accept("}")) {
        const key = this.#next().text;
        this.#accept(":");
        const value = this.#value();
        if (key in out) {
          const existing = out[key];
          out[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
        } else out[key] = value;
        this.#accept(",") || this.#accept(";");
      }
      return out;
    }
    if (token.text === "[") {
      const items: unknown[] = [];
      while (!this.#accept("]")) {
        items.push(this.#value());
        this.#accept(",");
      }
      return items;
    }
    if (token.text === "-") return `-${this.#next().text}`;
    return token.text;
  }

  #enum(scope: string): ProtoEnum {
    const name = this.#next().text;
    const values: Array<{ name: string; number: number }> = [];
    this.#expect("{");
    while (!this.#accept("}")) {
      const token = this.#next();
      if (token.text === "option" || token.text === "reserved") {
        this.#skipStatement();
        continue;
      }
      if (token.text === ";") continue;
      this.#expect("=");
      let numberText = this.#next().text;
      if (numberText === "-") numberText = `-${this.#next().text}`;
      if (this.#accept("[")) {
        while (!this.#accept("]")) this.#next();
      }
      this.#expect(";");
      values.push({ name: token.text, number: Number(numberText) });
    }
    return { kind: "enum", fullName: scope === "" ? name : `${scope}.${name}`, values };
  }
}

/** Parses .proto text. */
export function parseProto(text: string): ProtoFile {
  return new Parser(tokenize(text)).file();
}
