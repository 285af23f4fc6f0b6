/** Kafka's `RecordIsTombstone` predicate: true when the record's value is null (a delete marker). */
import type { ConfigKeyDef } from "../config.ts";
import type { AnyRecord, Predicate } from "../types.ts";

export const RECORD_IS_TOMBSTONE_CONFIG_DEF: readonly ConfigKeyDef[] = [];

export class RecordIsTombstone<R extends AnyRecord> implements Predicate<R> {
  configure(_props: Readonly<Record<string, string>>): void {}

  test(record: R): boolean {
    return record.value === null;
  }

  close(): void {}
}
