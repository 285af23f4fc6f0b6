/**
 * Kafka's `Filter`: drops every record it is applied to. Used with a predicate (`transforms.<alias>.predicate`),
 * so that only the records the predicate selects (or, with `negate=true`, does not select) are dropped.
 */
import type { ConfigKeyDef } from "./config.ts";
import type { AnyRecord, Transformation } from "./types.ts";

export const FILTER_CONFIG_DEF: readonly ConfigKeyDef[] = [];

export class Filter<R extends AnyRecord> implements Transformation<R> {
  configure(_props: Readonly<Record<string, string>>): void {}

  apply(_record: R): null {
    return null;
  }

  close(): void {}
}
