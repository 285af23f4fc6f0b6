/** Shared builders for the transform tests: records and configured transforms looked up by Kafka class name. */
import {
  SinkRecord,
  type SinkRecordInit,
  SourceRecord,
  type SourceRecordInit,
} from "../../../src/connect/record.ts";
import { findPredicate, findTransformation } from "../../../src/connect/transforms/registry.ts";
import type { AnyRecord, Predicate, Transformation } from "../../../src/connect/transforms/types.ts";

export const T = "org.apache.kafka.connect.transforms.";
export const P = "org.apache.kafka.connect.transforms.predicates.";

/** A source record on topic `test`, partition 0, timestamp 123 unless overridden. */
export function source(init: Partial<SourceRecordInit> = {}): SourceRecord {
  return new SourceRecord({ topic: "test", kafkaPartition: 0, timestamp: 123, ...init });
}

/** A sink record on topic `test`, partition 0, offset 42, timestamp 123 unless overridden. */
export function sink(init: Partial<SinkRecordInit> = {}): SinkRecord {
  return new SinkRecord({ topic: "test", kafkaPartition: 0, kafkaOffset: 42, timestamp: 123, ...init });
}

/** A configured transformation of the given Kafka class (short name after `org.apache.kafka.connect.transforms.`). */
export function transform<R extends AnyRecord = AnyRecord>(
  simpleName: string,
  props: Record<string, string> = {},
): Transformation<R> {
  const plugin = findTransformation(T + simpleName);
  if (plugin === null) throw new Error(`no transformation ${simpleName}`);
  const t = plugin.create<R>();
  t.configure(props);
  return t;
}

/** A configured predicate of the given Kafka class. */
export function predicate<R extends AnyRecord = AnyRecord>(
  simpleName: string,
  props: Record<string, string> = {},
): Predicate<R> {
  const plugin = findPredicate(P + simpleName);
  if (plugin === null) throw new Error(`no predicate ${simpleName}`);
  const p = plugin.create<R>();
  p.configure(props);
  return p;
}

/** Applies a transform that must not drop the record. */
export function applied<R extends AnyRecord>(t: Transformation<R>, record: R): R {
  const result = t.apply(record);
  if (result === null) throw new Error("record was dropped");
  return result;
}
