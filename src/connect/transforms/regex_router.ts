/**
 * Kafka's `RegexRouter`: renames the topic when the regex matches the *whole* topic name (Java's `matches()`),
 * replacing the first match with `replacement`, where `$1` / `${name}` refer to groups. Topics that do not match
 * are left alone. Example: `regex=(.*)-raw`, `replacement=$1-clean` turns `orders-raw` into `orders-clean`.
 */
import { type ConfigKeyDef, TransformConfig } from "./config.ts";
import { JavaPattern, JavaRegexError } from "./java_regex.ts";
import { validRegex } from "./regex_validator.ts";
import type { AnyRecord, Transformation } from "./types.ts";
import { DataException } from "../errors.ts";

export const REGEX_ROUTER_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "regex",
    type: "STRING",
    importance: "HIGH",
    documentation: "Regular expression to use for matching.",
    validator: validRegex,
  },
  { name: "replacement", type: "STRING", importance: "HIGH", documentation: "Replacement string." },
];

export class RegexRouter<R extends AnyRecord> implements Transformation<R> {
  #regex: JavaPattern | null = null;
  #replacement = "";

  configure(props: Readonly<Record<string, string>>): void {
    const config = new TransformConfig(REGEX_ROUTER_CONFIG_DEF, props);
    this.#regex = new JavaPattern(config.getString("regex")!);
    this.#replacement = config.getString("replacement")!;
  }

  apply(record: R): R {
    const regex = this.#regex!;
    if (!regex.matches(record.topic)) return record;
    let topic: string;
    try {
      topic = regex.replaceFirst(record.topic, this.#replacement);
    } catch (e) {
      if (e instanceof JavaRegexError) throw new DataException(e.message, { cause: e });
      throw e;
    }
    return record.newRecord({ topic }) as R;
  }

  close(): void {}
}
