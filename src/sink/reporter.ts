/**
 * The reporter: success and error records (reporter_record.ts) produced as JSON to the topics the operator
 * named (`svc.sink.reporter.success.topic`, `svc.sink.reporter.error.topic`) on
 * `svc.sink.reporter.bootstrap.servers`, with `svc.sink.reporter.producer.*` overrides (tasks cannot see the
 * worker's Kafka settings). The sink never creates a topic: a missing one stops the task at start with a
 * message naming it. Without any topic set there is no producer and reporting does nothing.
 */
import type { RawConfig } from "../common/props.ts";
import { REPORTER_PRODUCER_PREFIX } from "../config/defs/sink.ts";
import {
  createKafka,
  kafkaOptionsFromProperties,
  type ProducedRecord,
  type Producer,
  stripPrefix,
} from "../kafka/mod.ts";
import type { Logger } from "../observability/log.ts";
import type { Report } from "./reporter_record.ts";
import type { ReporterSettings } from "./settings.ts";

export interface Reporter {
  /** Produces the reports (those whose topic is set) and resolves once Kafka acknowledged all of them. */
  send(reports: readonly Report[]): Promise<void>;
  close(): Promise<void>;
}

export class ReporterTopicMissingError extends Error {
  constructor(topic: string, property: string) {
    super(
      `reporter topic "${topic}" (${property}) does not exist on svc.sink.reporter.bootstrap.servers; ` +
        `the sink never creates topics: create it, then restart the task`,
    );
    this.name = "ReporterTopicMissingError";
  }
}

export interface ReporterStartOptions {
  settings: ReporterSettings;
  /** The task's resolved config, for the `svc.sink.reporter.producer.*` overrides. */
  config: RawConfig;
  /** Default `client.id` of the producer. */
  clientId: string;
  logger: Logger;
}

export async function startReporter(options: ReporterStartOptions): Promise<Reporter> {
  const { settings } = options;
  const topics = { success: settings.successTopic, error: settings.errorTopic };
  if (topics.success === null && topics.error === null) return NO_REPORTER;
  if (settings.bootstrapServers.length === 0) {
    throw new Error("svc.sink.reporter.bootstrap.servers is required when a reporter topic is set");
  }
  const kafkaOptions = await kafkaOptionsFromProperties({
    "bootstrap.servers": settings.bootstrapServers.join(","),
    "client.id": options.clientId,
    ...stripPrefix(options.config, REPORTER_PRODUCER_PREFIX),
  });
  const kafka = createKafka(kafkaOptions.connection, { log: options.logger });
  const admin = await kafka.admin();
  try {
    for (const [kind, topic] of Object.entries(topics)) {
      if (topic !== null && !(await admin.topicExists(topic))) {
        throw new ReporterTopicMissingError(topic, `svc.sink.reporter.${kind}.topic`);
      }
    }
  } finally {
    await admin.close();
  }
  return new KafkaReporter(await kafka.producer(kafkaOptions.producer), topics);
}

const NO_REPORTER: Reporter = {
  send: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

const encoder = new TextEncoder();

class KafkaReporter implements Reporter {
  constructor(
    private readonly producer: Producer,
    private readonly topics: { success: string | null; error: string | null },
  ) {}

  async send(reports: readonly Report[]): Promise<void> {
    const records: ProducedRecord[] = [];
    for (const report of reports) {
      const topic = this.topics[report.kind];
      if (topic === null) continue;
      const sysId = report.value.sys_id;
      records.push({
        topic,
        key: sysId === null ? null : encoder.encode(sysId),
        value: encoder.encode(JSON.stringify(report.value)),
      });
    }
    if (records.length > 0) await this.producer.send(records);
  }

  close(): Promise<void> {
    return this.producer.close();
  }
}
