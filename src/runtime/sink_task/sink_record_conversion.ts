/**
 * A consumed record on its way into a sink task (Connect's WorkerSinkTask.convertAndTransformRecord): the
 * converters turn its bytes into Connect data, then the transforms apply. A record that fails either goes through
 * the error handler (tolerance, dead letter queue): null when it is skipped.
 */
import { SinkRecord } from "../../connect/record.ts";
import type { ConsumedRecord } from "../../kafka/mod.ts";
import type { ErrorHandler } from "../errors/error_handler.ts";
import { ConversionError, fromBytes, prepareFromBytes, type RecordConverters } from "../task/record_bytes.ts";
import type { RecordTransformer } from "../task/record_transformer.ts";

export interface SinkRecordSteps {
  converters: RecordConverters;
  transforms: RecordTransformer<SinkRecord>;
  errors: ErrorHandler;
}

export async function toSinkRecord(consumed: ConsumedRecord, o: SinkRecordSteps): Promise<SinkRecord | null> {
  let parts;
  try {
    const pending = prepareFromBytes(o.converters, consumed.topic, consumed);
    if (pending) await pending;
    parts = fromBytes(o.converters, consumed.topic, consumed);
  } catch (e) {
    if (!(e instanceof ConversionError)) throw e;
    await o.errors.handleFailure(e.stage, e.original, {
      executingClass: e.executingClass,
      describe: () =>
        `consumed record is {topic='${consumed.topic}', partition=${consumed.partition}, offset=${consumed.offset}}`,
      failedRecord: () => ({ ...consumed }),
    });
    return null;
  }
  const record = new SinkRecord({
    topic: consumed.topic,
    kafkaPartition: consumed.partition,
    kafkaOffset: consumed.offset,
    keySchema: parts.key.schema,
    key: parts.key.value,
    valueSchema: parts.value.schema,
    value: parts.value.value,
    timestamp: consumed.timestamp,
    timestampType: "CreateTime",
    headers: parts.headers,
  });
  try {
    return o.transforms.apply(record);
  } catch (e) {
    const result = await o.errors.execute("TRANSFORMATION", () => o.transforms.apply(record), {
      executingClass: (e as { transformClass?: string }).transformClass ?? "transforms",
      describe: () =>
        `consumed record is {topic='${consumed.topic}', partition=${consumed.partition}, offset=${consumed.offset}}`,
      failedRecord: () => ({ ...consumed }),
    });
    return result.ok ? result.value : null;
  }
}
