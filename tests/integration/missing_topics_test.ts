/**
 * Topics that are missing or keep too little, on the real broker through the real daemon:
 *  - a sink started before its topic exists stays RUNNING with a status warning, consumes the topic once it is
 *    created (and a `topics.regex` sink picks up matching topics as they are created), and the warning clears;
 *  - a source without topic.creation.* writing to a missing topic lets the broker auto-create it (a second
 *    broker with auto.create.topics.enable=true; the shared broker refuses, see topic_creation_test.ts);
 *  - a source writing old rows into a topic whose retention.ms would delete them warns in its status and log.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { launchKafkaBroker, stopKafkaBroker } from "../support/kafka_broker_process.ts";
import { consumeAll, produceRecords } from "../support/kafka_helpers.ts";
import { type DaemonProcess, startDaemonProcess, waitFor } from "../support/daemon_process.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { type Simulator, startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Missing-Heron-61";

interface TaskStatus {
  state: string;
  warnings?: string[];
  trace?: string;
}

async function taskStatus(daemon: DaemonProcess, connector: string): Promise<TaskStatus | null> {
  const status = (await daemon.request("GET", `/connectors/${connector}/status`)).body;
  return status?.tasks?.[0] ?? null;
}

/** Waits until the connector's first task is RUNNING with a warning that contains `text`; returns it. */
async function warningOf(daemon: DaemonProcess, connector: string, text: string): Promise<string> {
  return await waitFor(
    async () => {
      const task = await taskStatus(daemon, connector);
      return task?.state === "RUNNING" ? task.warnings?.find((w) => w.includes(text)) ?? null : null;
    },
    60_000,
    `${connector} RUNNING with a warning about ${text}`,
  );
}

/** Waits until the simulator's incident `sysId` has `text` as its short description (a sink wrote it). */
async function untilWritten(sim: Simulator, sysId: string, text: string): Promise<void> {
  await waitFor(
    () => sim.table("incident").get(sysId)?.short_description === text,
    60_000,
    `"${text}" written`,
  );
}

function sinkConfig(simUrl: string, subscription: Record<string, string>) {
  return {
    "connector.class": "TableSinkConnector",
    ...subscription,
    "svc.url": simUrl,
    "svc.auth.username": "admin",
    "svc.auth.password": PASSWORD,
    "svc.sink.table": "incident",
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": false,
  };
}

Deno.test("a sink whose topic does not exist yet waits (RUNNING, warning) and consumes it once created", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 5 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("later.orders");
  const prefix = uniqueName("later.pattern");
  const [listed, matched, later] = sim.table("incident").sysIds();
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [
      { name: "listed", config: sinkConfig(sim.url, { topics: topic }) },
      { name: "pattern", config: sinkConfig(sim.url, { "topics.regex": `${prefix}\\..*` }) },
    ],
  });
  try {
    const waiting = await warningOf(daemon, "listed", topic);
    assertEquals(waiting, `waiting for topic ${topic} to exist (checked every 5 s)`);
    await warningOf(daemon, "pattern", `waiting for a topic matching topics.regex ${prefix}\\..*`);
    const taskOnly = (await daemon.request("GET", "/connectors/listed/tasks/0/status")).body;
    assertEquals(taskOnly.warnings, [waiting], "the task's own status carries the warnings too");
    assertStringIncludes(daemon.output(), waiting, "the warning is logged");

    await kafka.createTopic(topic, 2);
    await kafka.createTopic(`${prefix}.a`, 1);
    // Produced before the sinks noticed the topics: they must still be read (from the start, no offsets yet).
    await produceRecords(kafka.bootstrapServers, topic, [
      { key: listed, value: JSON.stringify({ short_description: "from the listed topic" }) },
    ]);
    await produceRecords(kafka.bootstrapServers, `${prefix}.a`, [
      { key: matched, value: JSON.stringify({ short_description: "from the matched topic" }) },
    ]);
    await untilWritten(sim, listed, "from the listed topic");
    await untilWritten(sim, matched, "from the matched topic");
    // A second matching topic, created while the pattern sink consumes the first: its consumer is replaced.
    await kafka.createTopic(`${prefix}.b`, 1);
    await produceRecords(kafka.bootstrapServers, `${prefix}.b`, [
      { key: later, value: JSON.stringify({ short_description: "from a topic matched later" }) },
    ]);
    await untilWritten(sim, later, "from a topic matched later");
    for (const name of ["listed", "pattern"]) {
      await waitFor(
        async () => {
          const task = await taskStatus(daemon, name);
          return task?.state === "RUNNING" && task.warnings === undefined;
        },
        30_000,
        `${name}'s warning cleared`,
      );
    }
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});

Deno.test("a source without topic.creation.* lets a broker with auto.create.topics.enable create its topic", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 12 }, users: [`admin:${PASSWORD}`] });
  const broker = await launchKafkaBroker({ serverProperties: { "auto.create.topics.enable": "true" } });
  const topic = uniqueName("auto.incident");
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": broker.bootstrapServers },
    connectors: [{ name: "auto", config: sourceConnectorConfig(sim.url, PASSWORD, { incident: topic }) }],
  });
  try {
    // A reader cannot subscribe before the topic exists: wait for the daemon to say the broker created it.
    await waitFor(
      () => daemon.output().includes(`topic ${topic} is available (the broker created it`),
      60_000,
      `${topic} auto-created`,
    );
    const records = await consumeAll(broker.bootstrapServers, topic, { expected: 12, timeoutMs: 60_000 });
    assertEquals(records.length, 12);
    assertEquals((await taskStatus(daemon, "auto"))?.state, "RUNNING");
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
    await stopKafkaBroker(broker);
  }
});

Deno.test("a source writing rows older than its topic's retention.ms warns in its status and log", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 10 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const short = uniqueName("short.retention");
  const kept = uniqueName("kept");
  await kafka.createTopic(short, 1, 1, { "retention.ms": "60000" });
  await kafka.createTopic(kept, 1, 1, { "retention.ms": "60000", "message.timestamp.type": "LogAppendTime" });
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [
      { name: "short", config: sourceConnectorConfig(sim.url, PASSWORD, { incident: short }) },
      { name: "kept", config: sourceConnectorConfig(sim.url, PASSWORD, { incident: kept }) },
    ],
  });
  try {
    const warning = await warningOf(daemon, "short", `topic ${short} deletes records older than 1 min`);
    assertStringIncludes(warning, "retention.ms=60000");
    assertStringIncludes(warning, "cleanup.policy=delete");
    assertStringIncludes(warning, "set retention.ms=-1 or cleanup.policy=compact");
    assertStringIncludes(daemon.output(), warning, "the warning is logged");
    // The same rows into a topic that stamps records on append: nothing to warn about.
    assertEquals(
      (await consumeAll(kafka.bootstrapServers, kept, { expected: 10, timeoutMs: 30_000 })).length,
      10,
    );
    const keptTask = await taskStatus(daemon, "kept");
    assertEquals(keptTask?.state, "RUNNING");
    assert(keptTask?.warnings === undefined, `no warning expected: ${keptTask?.warnings}`);
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
