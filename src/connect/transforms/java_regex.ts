/**
 * Java regular expressions and replacement strings, as RegexRouter and TopicNameMatches use them, on top of JS
 * `RegExp`.
 *
 * Patterns: the common syntax is shared. Translated here: leading inline flags `(?i)`, `(?s)`, `(?m)` (and
 * `(?u)`, which JS needs no flag for), `\A` and `\z`/`\Z` anchors, and `\Q...\E` quoting; `\p{...}` classes switch
 * on JS's unicode mode. Java-only constructs with no JS equivalent (possessive quantifiers such as `a++`,
 * comments mode `(?x)`) are rejected instead of being silently reinterpreted.
 *
 * Replacements follow `Matcher.appendReplacement`: `$1`, `${name}`, and `\` escaping the next character. A
 * reference to a missing group fails when applied, as in Java.
 */

/** Thrown for a pattern that cannot be compiled (Java's `PatternSyntaxException`). */
export class JavaRegexError extends Error {
  override name = "PatternSyntaxException";
}

function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/** Rewrites Java-only syntax into JS syntax; returns the body and the JS flags. */
function translate(pattern: string): { body: string; flags: string } {
  let flags = "";
  let rest = pattern;
  const inline = /^\(\?([a-zA-Z]+)\)/.exec(rest);
  if (inline) {
    for (const flag of inline[1]) {
      if (flag === "i" || flag === "s" || flag === "m") flags += flags.includes(flag) ? "" : flag;
      else if (flag !== "u") throw new JavaRegexError(`Unsupported inline flag '${flag}' in ${pattern}`);
    }
    rest = rest.slice(inline[0].length);
  }
  let body = "";
  let inClass = false;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (c === "\\") {
      const next = rest[i + 1];
      if (next === undefined) {
        throw new JavaRegexError(`Unexpected internal error near index ${i + 1}\n${pattern}`);
      }
      if (next === "Q") {
        const end = rest.indexOf("\\E", i + 2);
        const quoted = end < 0 ? rest.slice(i + 2) : rest.slice(i + 2, end);
        body += escapeLiteral(quoted);
        i = end < 0 ? rest.length : end + 1;
        continue;
      }
      if (!inClass && next === "A") body += "^";
      else if (!inClass && (next === "z" || next === "Z")) body += "$";
      else body += c + next;
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      body += c;
      continue;
    }
    if (c === "[") inClass = true;
    if ((c === "*" || c === "+" || c === "?" || c === "}") && rest[i + 1] === "+") {
      throw new JavaRegexError(`Possessive quantifiers are not supported: ${pattern}`);
    }
    body += c;
  }
  if (/\\[pP]\{/.test(body)) flags += "u";
  return { body, flags };
}

/** A compiled Java pattern: whole-input matching (`matches()`) and first-match replacement (`replaceFirst`). */
export class JavaPattern {
  readonly #whole: RegExp;
  readonly #find: RegExp;
  readonly groupCount: number;

  /** Throws `JavaRegexError` when the pattern is invalid or uses Java-only syntax. */
  constructor(readonly pattern: string) {
    const { body, flags } = translate(pattern);
    try {
      this.#whole = new RegExp(`^(?:${body})$`, flags);
      this.#find = new RegExp(body, flags);
    } catch (e) {
      throw new JavaRegexError((e as Error).message);
    }
    this.groupCount = new RegExp(`${body}|`, flags).exec("")!.length - 1;
  }

  /** Java's `matcher(text).matches()`: the pattern matches the entire text. */
  matches(text: string): boolean {
    return this.#whole.test(text);
  }

  /** Java's `matcher(text).replaceFirst(replacement)` with Java's replacement syntax. */
  replaceFirst(text: string, replacement: string): string {
    const m = this.#find.exec(text);
    if (m === null) return text;
    return text.slice(0, m.index) + this.#expand(replacement, m) + text.slice(m.index + m[0].length);
  }

  #expand(replacement: string, m: RegExpExecArray): string {
    let out = "";
    for (let i = 0; i < replacement.length; i++) {
      const c = replacement[i];
      if (c === "\\") {
        if (i + 1 >= replacement.length) throw new JavaRegexError("character to be escaped is missing");
        out += replacement[++i];
      } else if (c === "$") {
        if (i + 1 >= replacement.length) {
          throw new JavaRegexError("Illegal group reference: group index is missing");
        }
        if (replacement[i + 1] === "{") {
          const end = replacement.indexOf("}", i + 2);
          if (end < 0) throw new JavaRegexError("named capturing group is missing trailing '}'");
          const name = replacement.slice(i + 2, end);
          if (m.groups === undefined || !(name in m.groups)) {
            throw new JavaRegexError(`No group with name {${name}}`);
          }
          out += m.groups[name] ?? "";
          i = end;
        } else {
          // Java reads the first digit, then more digits while the number stays a valid group.
          let j = i + 1;
          if (!/\d/.test(replacement[j])) throw new JavaRegexError("Illegal group reference");
          let group = Number(replacement[j++]);
          while (j < replacement.length && /\d/.test(replacement[j])) {
            const longer = group * 10 + Number(replacement[j]);
            if (longer > this.groupCount) break;
            group = longer;
            j++;
          }
          if (group > this.groupCount) throw new JavaRegexError(`No group ${group}`);
          out += m[group] ?? "";
          i = j - 1;
        }
      } else {
        out += c;
      }
    }
    return out;
  }
}
