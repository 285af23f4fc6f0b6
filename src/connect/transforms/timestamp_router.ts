/**
 * Kafka's `TimestampRouter`: rewrites the topic from `topic.format` (default `${topic}-${timestamp}`), where
 * `${timestamp}` is the record timestamp formatted with the SimpleDateFormat `timestamp.format` (default
 * `yyyyMMdd`, UTC). A record without a timestamp is a `DataException`.
 */
import { DataException } from "../errors.ts";
import { type ConfigKeyDef, TransformConfig, TransformConfigException } from "./config.ts";
import { DatePatternError, SimpleDateFormat } from "./simple_date_format.ts";
import type { AnyRecord, Transformation } from "./types.ts";

function validPattern(value: unknown): string | undefined {
  try {
    new SimpleDateFormat(String(value));
    return undefined;
  } catch (e) {
    if (e instanceof DatePatternError) return e.message;
    throw e;
  }
}

export const TIMESTAMP_ROUTER_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "topic.format",
    type: "STRING",
    default: "${topic}-${timestamp}",
    importance: "HIGH",
    documentation: "Format string which can contain <code>${topic}</code> and <code>${timestamp}</code> as " +
      "placeholders for the topic and timestamp, respectively.",
  },
  {
    name: "timestamp.format",
    type: "STRING",
    default: "yyyyMMdd",
    importance: "HIGH",
    documentation:
      "Format string for the timestamp that is compatible with <code>java.text.SimpleDateFormat</code>.",
    validator: validPattern,
  },
];

export class TimestampRouter<R extends AnyRecord> implements Transformation<R> {
  #topicFormat = "";
  #timestampFormat: SimpleDateFormat | null = null;

  configure(props: Readonly<Record<string, string>>): void {
    const config = new TransformConfig(TIMESTAMP_ROUTER_CONFIG_DEF, props);
    this.#topicFormat = config.getString("topic.format")!;
    const pattern = config.getString("timestamp.format")!;
    try {
      this.#timestampFormat = new SimpleDateFormat(pattern);
    } catch (e) {
      if (e instanceof DatePatternError) {
        throw TransformConfigException.invalid("timestamp.format", pattern, e.message);
      }
      throw e;
    }
  }

  apply(record: R): R {
    if (record.timestamp === null) throw new DataException(`Timestamp missing on record: ${record}`);
    const timestamp = this.#timestampFormat!.format(new Date(record.timestamp));
    const topic = this.#topicFormat.replaceAll("${topic}", record.topic).replaceAll(
      "${timestamp}",
      timestamp,
    );
    return record.newRecord({ topic }) as R;
  }

  close(): void {}
}
