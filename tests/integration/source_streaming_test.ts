/**
 * Streaming with a live writer (inserts and updates, including bursts within one second): every row's final
 * version reaches its topic, and the change-to-topic delay is measured and printed (p50, p99). The delay is
 * counted from the row's sys_updated_on (second precision) to the moment a consumer saw it, so it includes the
 * safety lag, the poll interval and up to one second of rounding; it is printed, never asserted.
 */
import { Kafka, logLevel } from "kafkajs";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { parseDateTimeUtc } from "../../src/config/validators.ts";

Deno.test("live writer with bursts: every final row version arrives; change-to-topic delay reported", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 500 }, users: ["admin:pw-Stream-Tern-5"] });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("live.incident", 4);
  const seen = new Map<string, { modCount: string }>();
  const delays: number[] = [];
  const consumer = new Kafka({ brokers: kafka.bootstrapServers.split(","), logLevel: logLevel.NOTHING })
    .consumer({
      groupId: `live-${crypto.randomUUID()}`,
      sessionTimeout: 6000,
      maxWaitTimeInMs: 50,
    });
  await consumer.connect();
  await consumer.subscribe({ topics: ["live.incident"], fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: ({ message }) => {
      const value = JSON.parse(new TextDecoder().decode(message.value!));
      const key = new TextDecoder().decode(message.key!);
      seen.set(key, { modCount: value.sys_mod_count });
      if (streaming) delays.push(Date.now() - parseDateTimeUtc(value.sys_updated_on)!);
      return Promise.resolve();
    },
  });
  let streaming = false;
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "live",
      config: {
        "connector.class": "TableSourceConnector",
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": "pw-Stream-Tern-5",
        "svc.tables": "incident",
        "svc.table.incident.name": "incident",
        "svc.table.incident.topic": "live.incident",
        "svc.source.poll.interval.ms": 500,
      },
    }],
  });
  const table = sim.table("incident");
  try {
    await waitFor(() => seen.size >= 500, 90_000, "backfill");
    streaming = true;
    // Spread writes, then bursts: every write of a second lands at once.
    sim.writer.start({ rowsPerSecond: 40, table: "incident", insertRatio: 0.4, mode: "spread" });
    await new Promise((r) => setTimeout(r, 4000));
    sim.writer.stop();
    sim.writer.start({ rowsPerSecond: 150, table: "incident", insertRatio: 0.3, mode: "burst" });
    await new Promise((r) => setTimeout(r, 4000));
    sim.writer.stop();
    await waitFor(
      () => table.sysIds().every((id) => seen.get(id)?.modCount === table.get(id)!.sys_mod_count),
      30_000,
      "every row's final version on the topic",
    );
    const sorted = [...delays].sort((a, b) => a - b);
    const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    console.log(
      `live writer: ${table.count} rows, ${delays.length} streamed versions; change-to-topic delay p50 ${
        pick(0.5)
      } ms, p99 ${pick(0.99)} ms (sys_updated_on has second precision; safety lag 1 s, poll interval 0.5 s)`,
    );
  } finally {
    sim.writer.stop();
    await consumer.disconnect();
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
