/** Kafka's `RegexValidator` for pattern keys: the value must compile as a (Java) regular expression. */
import type { ConfigValue } from "./config.ts";
import { JavaPattern, JavaRegexError } from "./java_regex.ts";

export function validRegex(value: ConfigValue): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    new JavaPattern(value);
    return undefined;
  } catch (e) {
    if (e instanceof JavaRegexError) return `Invalid regex: ${e.message}`;
    throw e;
  }
}
