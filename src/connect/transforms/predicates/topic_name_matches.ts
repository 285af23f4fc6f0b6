/**
 * Kafka's `TopicNameMatches` predicate: true when the record's topic matches `pattern` in full (Java's
 * `matches()`), so `pattern=orders` selects only the topic `orders` and `orders.*` every topic starting with it.
 */
import { type ConfigKeyDef, nonEmptyString, TransformConfig } from "../config.ts";
import { JavaPattern } from "../java_regex.ts";
import { validRegex } from "../regex_validator.ts";
import type { AnyRecord, Predicate } from "../types.ts";

export const TOPIC_NAME_MATCHES_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "pattern",
    type: "STRING",
    importance: "MEDIUM",
    documentation: "A Java regular expression for matching against the name of a record's topic.",
    validator: (value) => nonEmptyString(value) ?? validRegex(value),
  },
];

export class TopicNameMatches<R extends AnyRecord> implements Predicate<R> {
  #pattern: JavaPattern | null = null;

  configure(props: Readonly<Record<string, string>>): void {
    this.#pattern = new JavaPattern(
      new TransformConfig(TOPIC_NAME_MATCHES_CONFIG_DEF, props).getString("pattern")!,
    );
  }

  test(record: R): boolean {
    return record.topic != null && this.#pattern!.matches(record.topic);
  }

  close(): void {}
}
