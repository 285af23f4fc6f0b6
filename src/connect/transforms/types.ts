/**
 * The contracts of single message transforms and predicates (Kafka's `Transformation<R>` and `Predicate<R>`).
 *
 * Both are generic over the record type, so one implementation serves source records (transformed after `poll`,
 * before conversion) and sink records (transformed after conversion, before `put`). Instances are created by the
 * registry, configured once with their own keys (the connector's `transforms.<alias>.*` with the prefix removed),
 * then called for each record.
 */
import type { ConnectRecord } from "../record.ts";
import type { ConfigKeyDef } from "./config.ts";

/** Any Connect record (`SourceRecord`, `SinkRecord`). */
// deno-lint-ignore no-explicit-any
export type AnyRecord = ConnectRecord<any>;

export interface Transformation<R extends ConnectRecord<R> = AnyRecord> {
  /** Reads and checks the transform's own keys; throws `ConfigException` with Kafka's message when invalid. */
  configure(props: Readonly<Record<string, string>>): void;
  /** The transformed record, or null to drop it. Throws `DataException` when the record does not fit. */
  apply(record: R): R | null;
  close(): void;
}

export interface Predicate<R extends ConnectRecord<R> = AnyRecord> {
  configure(props: Readonly<Record<string, string>>): void;
  test(record: R): boolean;
  close(): void;
}

/** What the registry knows about a plugin class: its kind, its config keys and how to make an instance. */
export interface TransformPlugin {
  /** Kafka's class name, e.g. `org.apache.kafka.connect.transforms.ReplaceField$Value`. */
  readonly className: string;
  readonly configDef: readonly ConfigKeyDef[];
}

export interface TransformationPlugin extends TransformPlugin {
  readonly kind: "transformation";
  create<R extends ConnectRecord<R>>(): Transformation<R>;
}

export interface PredicatePlugin extends TransformPlugin {
  readonly kind: "predicate";
  create<R extends ConnectRecord<R>>(): Predicate<R>;
}
