/**
 * Reads a topic from its beginning, continuously, into an array the test inspects while the daemon runs (crash
 * tests wait for every row's final version to appear). Each message's JSON value is mapped by the caller.
 */
import { Kafka, logLevel } from "kafkajs";

export interface CollectedMessage {
  readonly key: string;
  /** The parsed JSON value. */
  readonly value: Record<string, unknown>;
  readonly timestamp: number;
}

/** Consumes `topic` into `out` (through `map`) until the returned consumer is disconnected. */
export async function collectTopic<T>(
  bootstrap: string,
  topic: string,
  out: T[],
  map: (message: CollectedMessage) => T,
): Promise<{ disconnect(): Promise<void> }> {
  const consumer = new Kafka({ brokers: bootstrap.split(","), logLevel: logLevel.NOTHING }).consumer({
    groupId: `collector-${crypto.randomUUID()}`,
    sessionTimeout: 6000,
    maxWaitTimeInMs: 100,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatch: ({ batch }) => {
      for (const m of batch.messages) {
        out.push(map({
          key: new TextDecoder().decode(m.key!),
          value: JSON.parse(new TextDecoder().decode(m.value!)),
          timestamp: Number(m.timestamp),
        }));
      }
      return Promise.resolve();
    },
  });
  return consumer;
}
