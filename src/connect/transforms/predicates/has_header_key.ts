/** Kafka's `HasHeaderKey` predicate: true when the record has at least one header named `name`. */
import { type ConfigKeyDef, nonEmptyString, TransformConfig } from "../config.ts";
import type { AnyRecord, Predicate } from "../types.ts";

export const HAS_HEADER_KEY_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "name",
    type: "STRING",
    importance: "MEDIUM",
    documentation: "The header name.",
    validator: nonEmptyString,
  },
];

export class HasHeaderKey<R extends AnyRecord> implements Predicate<R> {
  #name = "";

  configure(props: Readonly<Record<string, string>>): void {
    this.#name = new TransformConfig(HAS_HEADER_KEY_CONFIG_DEF, props).getString("name")!;
  }

  test(record: R): boolean {
    return record.headers.lastWithName(this.#name) !== null;
  }

  close(): void {}
}
