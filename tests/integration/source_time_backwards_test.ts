/**
 * The instance goes back in time, through the real daemon on a real broker. A rollback of a table (a clone over
 * the instance, made with the simulator's snapshot and restore) is reported as a warning naming the likely cause,
 * in the log and in GET /connectors/<n>/tables, and with the default policy (reconcile) the table is read again so
 * that its topic's latest version of every row is the table's. A clock jumped back is reported too, and with
 * `restart` the cursor restarts at the instance's present, so a row written after the jump (its timestamp below
 * the old cursor) still reaches its topic. The two scenes run concurrently, each with its own daemon.
 */
import { Kafka, logLevel } from "kafkajs";
import { assert, assertEquals } from "../support/assert.ts";
import { type KafkaBroker, startKafkaBroker } from "../support/kafka_broker.ts";
import { type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { type Simulator, startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Back-In-Time-3";

/** The latest value per key of a topic, kept up to date by a consumer. */
async function latestPerKey(kafka: KafkaBroker, topic: string) {
  const latest = new Map<string, Record<string, string>>();
  const consumer = new Kafka({ brokers: kafka.bootstrapServers.split(","), logLevel: logLevel.NOTHING })
    .consumer({ groupId: `back-${crypto.randomUUID()}`, sessionTimeout: 6000, maxWaitTimeInMs: 50 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: ({ message }) => {
      latest.set(
        new TextDecoder().decode(message.key!),
        JSON.parse(new TextDecoder().decode(message.value!)),
      );
      return Promise.resolve();
    },
  });
  return { latest, stop: () => consumer.disconnect() };
}

async function daemonFor(
  kafka: KafkaBroker,
  sim: Simulator,
  name: string,
  extra: Record<string, string> = {},
): Promise<DaemonProcess> {
  return await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name,
      config: sourceConnectorConfig(sim.url, PASSWORD, { incident: `${name}.incident` }, {
        "svc.table.incident.fields": "sys_id,sys_updated_on,sys_mod_count,short_description",
        "svc.source.poll.interval.ms": "500",
        ...extra,
      }),
    }],
  });
}

async function tableWarning(daemon: DaemonProcess, name: string): Promise<string | null> {
  const res = await daemon.request("GET", `/connectors/${name}/tables`);
  return res.body?.[0]?.warning?.message ?? null;
}

function topicEqualsTable(sim: Simulator, latest: Map<string, Record<string, string>>): boolean {
  const table = sim.table("incident");
  return table.sysIds().every((id) => {
    const row = table.get(id)!, got = latest.get(id);
    return got?.sys_mod_count === row.sys_mod_count && got?.short_description === row.short_description;
  });
}

async function rollbackScene(kafka: KafkaBroker): Promise<void> {
  const sim = await startSimulator({ port: 0, seed: { incident: 200 }, users: [`admin:${PASSWORD}`] });
  await kafka.createTopic("rollback.incident", 1);
  const topic = await latestPerKey(kafka, "rollback.incident");
  const daemon = await daemonFor(kafka, sim, "rollback");
  try {
    await waitFor(() => topic.latest.size >= 200, 60_000, "the table on its topic");
    const table = sim.table("incident");
    const snapshot = sim.drift.snapshot("incident");
    // An hour of work after the backup, then the instance is cloned back to it.
    sim.clock.advance(3_600_000);
    for (const id of table.sysIds().slice(0, 20)) table.update(id, { short_description: "after the backup" });
    await waitFor(() => topicEqualsTable(sim, topic.latest), 60_000, "the hour's changes on the topic");
    const restored = sim.drift.restore(snapshot);
    assertEquals(restored.reverted, 20);
    assert(!topicEqualsTable(sim, topic.latest), "the rolled-back rows differ from their topic");
    await waitFor(
      async () => (await tableWarning(daemon, "rollback")) !== null,
      60_000,
      "a warning on /tables",
    );
    const warning = (await tableWarning(daemon, "rollback"))!;
    assert(/clone over it or a restore from backup/.test(warning), warning);
    assert(/read again from/.test(warning), warning);
    assert(
      daemon.output().split("\n").some((l) => /went back in time/.test(l) && /warn/i.test(l)),
      "a warning in the log",
    );
    await waitFor(
      () => topicEqualsTable(sim, topic.latest),
      60_000,
      "every row's rolled-back version on the topic",
    );
  } finally {
    await topic.stop();
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
}

async function clockScene(kafka: KafkaBroker): Promise<void> {
  const sim = await startSimulator({ port: 0, seed: { incident: 50 }, users: [`admin:${PASSWORD}`] });
  await kafka.createTopic("clockback.incident", 1);
  const topic = await latestPerKey(kafka, "clockback.incident");
  const daemon = await daemonFor(kafka, sim, "clockback", { "svc.source.time.backwards.policy": "restart" });
  try {
    await waitFor(() => topic.latest.size >= 50, 60_000, "the table on its topic");
    const table = sim.table("incident");
    // The cursor is at the present; the instance is restored to a state with its clock two hours behind.
    sim.clock.advance(-7_200_000);
    await waitFor(
      async () => (await tableWarning(daemon, "clockback")) !== null,
      60_000,
      "a warning on /tables",
    );
    const warning = (await tableWarning(daemon, "clockback"))!;
    assert(/instance clock went back 7\d\d\d s/.test(warning), warning);
    assert(/cursor restarts at the instance's present/.test(warning), warning);
    const written = table.insert({ short_description: "written after the clock went back" }).sys_id;
    await waitFor(() => topic.latest.has(written), 60_000, "the row written after the jump on its topic");
  } finally {
    await topic.stop();
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
}

Deno.test("the instance going back in time is reported and, per policy, its rows reach their topics", async () => {
  await using kafka = await startKafkaBroker();
  await Promise.all([rollbackScene(kafka), clockScene(kafka)]);
});
