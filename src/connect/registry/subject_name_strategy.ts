/**
 * Subject name strategies (`key.subject.name.strategy` / `value.subject.name.strategy`, docs/schema-registry.md,
 * "Subjects"), by Confluent's class names (the simple class name is accepted too). The record name is the Avro
 * record's full name, the JSON Schema `title`, or the Protobuf message's full name.
 */
import { ConfigException, DataException } from "../errors.ts";
import type { ConverterConfig } from "../converters/converter.ts";

const PACKAGE = "io.confluent.kafka.serializers.subject.";
const STRATEGIES = ["TopicNameStrategy", "RecordNameStrategy", "TopicRecordNameStrategy"] as const;
export type SubjectNameStrategy = typeof STRATEGIES[number];

/** Reads `key.subject.name.strategy` or `value.subject.name.strategy`. */
export function subjectNameStrategy(configs: ConverterConfig, isKey: boolean): SubjectNameStrategy {
  const property = isKey ? "key.subject.name.strategy" : "value.subject.name.strategy";
  const raw = configs[property]?.trim();
  if (raw === undefined || raw === "") return "TopicNameStrategy";
  const simple = raw.startsWith(PACKAGE) ? raw.slice(PACKAGE.length) : raw;
  const match = STRATEGIES.find((s) => s === simple);
  if (match === undefined) {
    throw ConfigException.invalidValue(
      property,
      raw,
      `Supported strategies: ${STRATEGIES.map((s) => PACKAGE + s).join(", ")}`,
    );
  }
  return match;
}

/** The subject for a record; `recordName` is only needed by the record-based strategies. */
export function subjectName(
  strategy: SubjectNameStrategy,
  topic: string,
  isKey: boolean,
  recordName: string | null,
): string {
  if (strategy === "TopicNameStrategy") return `${topic}-${isKey ? "key" : "value"}`;
  if (recordName === null) {
    throw new DataException(`${strategy} needs a named record schema (the schema has no name)`);
  }
  return strategy === "RecordNameStrategy" ? recordName : `${topic}-${recordName}`;
}
