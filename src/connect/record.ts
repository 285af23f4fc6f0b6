/**
 * Connect records (Kafka's `ConnectRecord`, `SourceRecord`, `SinkRecord`): what connectors produce and consume
 * and what transforms rewrite. Records are immutable apart from their headers (mutable, as in Kafka);
 * `newRecord({...changes})` copies a record with some parts replaced — Kafka's `newRecord(topic, partition,
 * keySchema, key, valueSchema, value, timestamp[, headers])` with named arguments. When `headers` is not given the
 * copy gets a duplicate of the original headers, as in Kafka.
 */
import { ConnectHeaders, type Header } from "./headers.ts";
import type { Schema } from "./schema.ts";
import { displayValue } from "./struct.ts";

/** The parts every record has; `newRecord` accepts any subset of them. */
export interface ConnectRecordFields {
  topic: string;
  /** The target/source Kafka partition, or null to let the producer choose. */
  kafkaPartition: number | null;
  keySchema: Schema | null;
  key: unknown;
  valueSchema: Schema | null;
  value: unknown;
  /** Epoch milliseconds, or null when the record has none. */
  timestamp: number | null;
  headers: ConnectHeaders | Iterable<Header>;
}

/** Construction input: `topic` is required; every other part defaults to null (headers: empty). */
export type ConnectRecordInit = Pick<ConnectRecordFields, "topic"> & Partial<ConnectRecordFields>;

export abstract class ConnectRecord<R extends ConnectRecord<R>> {
  readonly topic: string;
  readonly kafkaPartition: number | null;
  readonly keySchema: Schema | null;
  readonly key: unknown;
  readonly valueSchema: Schema | null;
  readonly value: unknown;
  readonly timestamp: number | null;
  readonly headers: ConnectHeaders;

  protected constructor(init: ConnectRecordInit) {
    this.topic = init.topic;
    this.kafkaPartition = init.kafkaPartition ?? null;
    this.keySchema = init.keySchema ?? null;
    this.key = init.key ?? null;
    this.valueSchema = init.valueSchema ?? null;
    this.value = init.value ?? null;
    this.timestamp = init.timestamp ?? null;
    this.headers = init.headers instanceof ConnectHeaders
      ? init.headers
      : new ConnectHeaders(init.headers ?? []);
  }

  /** A copy with the given parts replaced (variant-specific parts such as offsets are kept). */
  abstract newRecord(changes: Partial<ConnectRecordFields>): R;

  /** The common parts merged with `changes`, headers duplicated unless replaced. */
  protected mergedFields(changes: Partial<ConnectRecordFields>): ConnectRecordInit {
    const has = (k: keyof ConnectRecordFields) => Object.hasOwn(changes, k);
    return {
      topic: changes.topic ?? this.topic,
      kafkaPartition: has("kafkaPartition") ? changes.kafkaPartition : this.kafkaPartition,
      keySchema: has("keySchema") ? changes.keySchema : this.keySchema,
      key: has("key") ? changes.key : this.key,
      valueSchema: has("valueSchema") ? changes.valueSchema : this.valueSchema,
      value: has("value") ? changes.value : this.value,
      timestamp: has("timestamp") ? changes.timestamp : this.timestamp,
      headers: changes.headers ?? this.headers.duplicate(),
    };
  }

  /** Kafka's `ConnectRecord.toString()` layout. Includes record data: only log it where messages may be logged. */
  toString(): string {
    return `ConnectRecord{topic='${this.topic}', kafkaPartition=${this.kafkaPartition}, key=${
      displayValue(this.key)
    }, keySchema=${this.keySchema}, value=${
      displayValue(this.value)
    }, valueSchema=${this.valueSchema}, timestamp=${this.timestamp}, headers=${this.headers}}`;
  }
}

/** A value allowed inside a partition or an offset (Connect's OffsetUtils.validateFormat: primitives only). */
export type OffsetPrimitive = string | number | boolean | null;

/** Where a source record came from, e.g. `{"table":"incident"}` (the one type for it, the offset stores' too). */
export type SourcePartition = Readonly<Record<string, OffsetPrimitive>>;

/** How far the source has read in its partition, e.g. `{"sys_updated_on":"2024-10-01 12:00:00"}`. */
export type SourceOffset = Readonly<Record<string, OffsetPrimitive>>;

export interface SourceRecordInit extends ConnectRecordInit {
  sourcePartition?: SourcePartition | null;
  sourceOffset?: SourceOffset | null;
}

/** A record produced by a source connector, with its source partition and offset (Kafka's `SourceRecord`). */
export class SourceRecord extends ConnectRecord<SourceRecord> {
  readonly sourcePartition: SourcePartition | null;
  readonly sourceOffset: SourceOffset | null;

  constructor(init: SourceRecordInit) {
    super(init);
    this.sourcePartition = init.sourcePartition ?? null;
    this.sourceOffset = init.sourceOffset ?? null;
  }

  newRecord(changes: Partial<ConnectRecordFields>): SourceRecord {
    return new SourceRecord({
      ...this.mergedFields(changes),
      sourcePartition: this.sourcePartition,
      sourceOffset: this.sourceOffset,
    });
  }

  override toString(): string {
    return `SourceRecord{sourcePartition=${displayValue(this.sourcePartition)}, sourceOffset=${
      displayValue(this.sourceOffset)
    }} ${super.toString()}`;
  }
}

/** Kafka's `TimestampType` of a consumed record. */
export type TimestampType = "NoTimestampType" | "CreateTime" | "LogAppendTime";

export interface SinkRecordInit extends ConnectRecordInit {
  kafkaPartition: number;
  kafkaOffset: number;
  timestampType?: TimestampType;
  /** KIP-793: where the record was consumed, before any transform changed topic or partition. */
  originalTopic?: string;
  originalKafkaPartition?: number;
  originalKafkaOffset?: number;
}

/** A record consumed for a sink connector, with its Kafka offset (Kafka's `SinkRecord`). */
export class SinkRecord extends ConnectRecord<SinkRecord> {
  declare readonly kafkaPartition: number;
  readonly kafkaOffset: number;
  readonly timestampType: TimestampType;
  readonly originalTopic: string;
  readonly originalKafkaPartition: number;
  readonly originalKafkaOffset: number;

  constructor(init: SinkRecordInit) {
    super(init);
    this.kafkaOffset = init.kafkaOffset;
    this.timestampType = init.timestampType ?? "NoTimestampType";
    this.originalTopic = init.originalTopic ?? init.topic;
    this.originalKafkaPartition = init.originalKafkaPartition ?? init.kafkaPartition;
    this.originalKafkaOffset = init.originalKafkaOffset ?? init.kafkaOffset;
  }

  newRecord(changes: Partial<ConnectRecordFields>): SinkRecord {
    const merged = this.mergedFields(changes);
    return new SinkRecord({
      ...merged,
      // A sink record always has a partition; Kafka keeps the old one when a transform passes null.
      kafkaPartition: merged.kafkaPartition ?? this.kafkaPartition,
      kafkaOffset: this.kafkaOffset,
      timestampType: this.timestampType,
      originalTopic: this.originalTopic,
      originalKafkaPartition: this.originalKafkaPartition,
      originalKafkaOffset: this.originalKafkaOffset,
    });
  }

  override toString(): string {
    return `SinkRecord{kafkaOffset=${this.kafkaOffset}, timestampType=${this.timestampType}, originalTopic=${this.originalTopic}, originalKafkaPartition=${this.originalKafkaPartition}, originalKafkaOffset=${this.originalKafkaOffset}} ${super.toString()}`;
  }
}
