/**
 * A source record on its way to Kafka (part of the source driver): the transforms, then the converters, with
 * failures handed to the error handler (retried, tolerated: dropped, or failing the task). Rows are converted
 * synchronously; only a transform failure or a converter fetching a schema makes it wait.
 */
import type { SourceRecord } from "../../connect/record.ts";
import type { ProducedRecord } from "../../kafka/mod.ts";
import type { ErrorHandler } from "../errors/error_handler.ts";
import { ConversionError, prepareToBytes, type RecordConverters, toBytes } from "../task/record_bytes.ts";
import type { RecordTransformer } from "../task/record_transformer.ts";

export interface SourceRecordPreparerOptions {
  readonly transforms: RecordTransformer<SourceRecord>;
  readonly converters: RecordConverters;
  readonly errors: ErrorHandler;
}

export class SourceRecordPreparer {
  readonly #o: SourceRecordPreparerOptions;

  constructor(options: SourceRecordPreparerOptions) {
    this.#o = options;
  }

  /**
   * Transforms and converts one record; null when it is dropped (filtered, or a tolerated failure). A promise only
   * when something must be awaited: a transform's failure goes to the error handler, a converter prepares a schema.
   */
  prepare(record: SourceRecord): ProducedRecord | null | Promise<ProducedRecord | null> {
    let transformed: SourceRecord | null;
    try {
      transformed = this.#o.transforms.apply(record);
    } catch (e) {
      return this.#retryTransform(record, e).then((t) => t === null ? null : this.#convert(t));
    }
    return transformed === null ? null : this.#convert(transformed);
  }

  /** A transform threw: the error handler retries or tolerates it (null: dropped). */
  async #retryTransform(record: SourceRecord, e: unknown): Promise<SourceRecord | null> {
    const result = await this.#o.errors.execute("TRANSFORMATION", () => this.#o.transforms.apply(record), {
      executingClass: (e as { transformClass?: string }).transformClass ?? "transforms",
      describe: () => String(record),
      failedRecord: () => this.#failedSourceRecord(record),
    });
    return result.ok ? result.value : null;
  }

  /** A transformed record to its bytes, once its converters' schemas are ready. */
  #convert(record: SourceRecord): ProducedRecord | null | Promise<ProducedRecord | null> {
    let pending;
    try {
      pending = prepareToBytes(this.#o.converters, record);
    } catch (e) {
      return this.#conversionFailed(record, e);
    }
    if (pending) {
      return pending.then(() => this.#toProduced(record), (e) => this.#conversionFailed(record, e));
    }
    return this.#toProduced(record);
  }

  #toProduced(record: SourceRecord): ProducedRecord | Promise<null> {
    let bytes;
    try {
      bytes = toBytes(this.#o.converters, record);
    } catch (e) {
      return this.#conversionFailed(record, e);
    }
    return {
      topic: record.topic,
      partition: record.kafkaPartition ?? undefined,
      key: bytes.key,
      value: bytes.value,
      headers: bytes.headers,
      timestamp: record.timestamp ?? undefined,
    };
  }

  /** Either throws (the task fails) or tolerates (the record is skipped: null). Not a ConversionError: thrown. */
  async #conversionFailed(record: SourceRecord, e: unknown): Promise<null> {
    if (!(e instanceof ConversionError)) throw e;
    await this.#o.errors.handleFailure(e.stage, e.original, {
      executingClass: e.executingClass,
      describe: () => String(record),
      failedRecord: () => this.#failedSourceRecord(record),
    });
    return null;
  }

  /** A source record that could not be converted has no bytes: the DLQ gets its key and value as JSON text. */
  #failedSourceRecord(record: SourceRecord) {
    const text = (v: unknown) => {
      try {
        return new TextEncoder().encode(
          JSON.stringify(v, (_k, x) => typeof x === "bigint" ? x.toString() : x),
        );
      } catch {
        return new TextEncoder().encode(String(v));
      }
    };
    return {
      key: record.key === null ? null : text(record.key),
      value: record.value === null ? null : text(record.value),
      timestamp: record.timestamp,
    };
  }
}
