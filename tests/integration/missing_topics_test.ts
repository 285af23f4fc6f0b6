/**
 * Topics that are missing or keep too little, on the real broker through the real daemon:
 *  - a sink started before its topic exists stays RUNNING with a warning (status, log and the server-rendered
 *    status page), consumes the topic once it is created (and a `topics.regex` sink picks up matching topics as
 *    they are created), and the warning clears; a topic deleted under it makes it wait again (its consumer leaves
 *    the group instead of crashing in a loop) until the topic is back;
 *  - a source without topic.creation.* writing to a missing topic lets the broker auto-create it (a second
 *    broker with auto.create.topics.enable=true; the shared broker refuses, see topic_creation_test.ts);
 *  - a source writing old rows into a topic whose retention.ms would delete them warns in its status, log and page,
 *    at start and whenever a table begins a backfill later (a table added, offsets reset after the topic's
 *    retention was lowered); compacted topics, topics stamping on append and rows within retention stay quiet.
 */
import { SCHEMALESS_JSON, sinkConnectorConfig } from "../support/sink_connector.ts";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { launchKafkaBroker, stopKafkaBroker } from "../support/kafka_broker_process.ts";
import { consumeAll, produceRecords } from "../support/kafka_helpers.ts";
import { connectorStatus, type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { type Simulator, startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Missing-Heron-61";

async function taskStatus(daemon: DaemonProcess, connector: string) {
  return (await connectorStatus(daemon, connector))?.tasks[0] ?? null;
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

/** The status page as `curl` sees it (server-rendered, no token configured). */
async function statusPage(daemon: DaemonProcess): Promise<string> {
  const response = await fetch(`${daemon.url}/ui`);
  assertEquals(response.status, 200);
  return await response.text();
}

const escapeHtml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("'", "&#39;");

/** Waits until the simulator's incident `sysId` has `text` as its short description (a sink wrote it). */
async function untilWritten(sim: Simulator, sysId: string, text: string): Promise<void> {
  await waitFor(
    () => sim.table("incident").get(sysId)?.short_description === text,
    60_000,
    `"${text}" written`,
  );
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
      {
        name: "listed",
        config: sinkConnectorConfig(sim.url, PASSWORD, { topics: topic, ...SCHEMALESS_JSON }),
      },
      {
        name: "pattern",
        config: sinkConnectorConfig(sim.url, PASSWORD, {
          "topics.regex": `${prefix}\\..*`,
          ...SCHEMALESS_JSON,
        }),
      },
    ],
  });
  try {
    const waiting = await warningOf(daemon, "listed", topic);
    assertEquals(waiting, `waiting for topic ${topic} to exist (checked every 5 s)`);
    await warningOf(daemon, "pattern", `waiting for a topic matching topics.regex ${prefix}\\..*`);
    const taskOnly = (await daemon.request("GET", "/connectors/listed/tasks/0/status")).body;
    assertEquals(taskOnly.warnings, [waiting], "the task's own status carries the warnings too");
    assertStringIncludes(daemon.output(), waiting, "the warning is logged");
    // A topic that can never exist is refused up front, naming the property and the entry.
    const refused = await daemon.request(
      "PUT",
      "/connectors/never/config",
      sinkConnectorConfig(sim.url, PASSWORD, { topics: "a b", ...SCHEMALESS_JSON }),
    );
    assertEquals(refused.status, 400);
    assertStringIncludes(
      refused.body.message,
      "topics: Invalid value a b for configuration topics: 'a b' is not a valid topic name",
    );
    const page = await statusPage(daemon);
    assertStringIncludes(page, `<li>${escapeHtml(waiting)}</li>`, "the page shows the warning");
    assertStringIncludes(page, escapeHtml(`waiting for a topic matching topics.regex ${prefix}\\..*`));

    await kafka.createTopic(topic, 2);
    await kafka.createTopic(`${prefix}.a`, 1);
    // Produced before the sinks noticed the topics: they must still be read (from the start, no offsets yet).
    // Partition 0, as after the topic is created again below: the same partition and offset in both lives.
    await produceRecords(kafka.bootstrapServers, topic, [
      { key: listed, value: JSON.stringify({ short_description: "from the listed topic" }), partition: 0 },
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

    // The listed topic is deleted under the running sink: it waits again, its consumer out of the group.
    await kafka.deleteTopic(topic);
    assertEquals(await warningOf(daemon, "listed", topic), waiting);
    await waitFor(
      async () => (await kafka.describeGroup("connect-listed")).members === 0,
      60_000,
      "the listed sink's consumer left its group",
    );
    await kafka.createTopic(topic, 1);
    await produceRecords(kafka.bootstrapServers, topic, [
      {
        key: listed,
        value: JSON.stringify({ short_description: "from the topic created again" }),
        partition: 0,
      },
    ]);
    await untilWritten(sim, listed, "from the topic created again");
    // kafkajs restarts a consumer whose topic is gone every 300 ms, logging "Crash: ..." with a stack each time.
    assert(!daemon.output().includes("Crash:"), "a consumer crashed and was restarted by kafkajs");
    // The graceful stop commits the new topic's offset, although the deleted one had the same: nothing the old
    // topic left behind (its last commit) makes the sink skip it, which would redeliver the record after a restart.
    assertEquals((await daemon.stop("SIGTERM")).code, 0);
    assertEquals(await kafka.groupOffsets("connect-listed", topic), { [`${topic}/0`]: 1 });
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

/** Waits until `topic` holds `expected` records, then checks the connector's task is RUNNING without warnings. */
async function quiet(
  daemon: DaemonProcess,
  bootstrap: string,
  connector: string,
  topic: string,
  expected: number,
) {
  assertEquals((await consumeAll(bootstrap, topic, { expected, timeoutMs: 30_000 })).length, expected);
  const task = await taskStatus(daemon, connector);
  assertEquals(task?.state, "RUNNING");
  assert(task?.warnings === undefined, `${connector}: no warning expected: ${task?.warnings}`);
}

Deno.test("a source writing rows older than its topic's retention.ms warns at start and when a backfill begins", async () => {
  // Rows updated a minute or more ago: older than 1 min, well within 7 days.
  const sim = await startSimulator({
    port: 0,
    seed: { incident: 10, problem: 5 },
    users: [`admin:${PASSWORD}`],
  });
  await using kafka = await startKafkaBroker();
  const [short, kept, compacted, week, first, added] = [
    "short.retention",
    "kept",
    "compacted",
    "week",
    "grow.first",
    "grow.added",
  ].map(uniqueName);
  const minute = { "retention.ms": "60000" };
  const sevenDays = { "retention.ms": String(7 * 86_400_000) };
  await kafka.createTopic(short, 1, 1, minute);
  await kafka.createTopic(kept, 1, 1, { ...minute, "message.timestamp.type": "LogAppendTime" });
  await kafka.createTopic(compacted, 1, 1, { ...minute, "cleanup.policy": "compact" });
  for (const topic of [week, first]) await kafka.createTopic(topic, 1, 1, sevenDays);
  await kafka.createTopic(added, 1, 1, minute);
  const source = (topics: Record<string, string>) => sourceConnectorConfig(sim.url, PASSWORD, topics);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [
      { name: "short", config: source({ incident: short }) },
      { name: "kept", config: source({ incident: kept }) },
      { name: "compacted", config: source({ incident: compacted }) },
      { name: "week", config: source({ incident: week }) },
      { name: "grow", config: source({ problem: first }) },
    ],
  });
  try {
    const warning = await warningOf(daemon, "short", `topic ${short} deletes records older than 1 min`);
    assertStringIncludes(warning, "retention.ms=60000");
    assertStringIncludes(warning, "cleanup.policy=delete");
    assertStringIncludes(warning, "set retention.ms=-1 or cleanup.policy=compact");
    assertStringIncludes(daemon.output(), warning, "the warning is logged");
    assertStringIncludes(await statusPage(daemon), `<li>${escapeHtml(warning)}</li>`, "the page shows it");
    // The same rows into a topic that stamps records on append, a compacted one and one keeping them: quiet.
    await quiet(daemon, kafka.bootstrapServers, "kept", kept, 10);
    await quiet(daemon, kafka.bootstrapServers, "compacted", compacted, 10);
    await quiet(daemon, kafka.bootstrapServers, "week", week, 10);
    await quiet(daemon, kafka.bootstrapServers, "grow", first, 5);

    // A table added later begins its backfill into a topic keeping 1 min: the warning comes then.
    const grown = await daemon.request(
      "PUT",
      "/connectors/grow/config",
      source({ problem: first, incident: added }),
    );
    assertEquals(grown.status, 200);
    assertStringIncludes(
      await warningOf(daemon, "grow", `topic ${added} deletes records older than 1 min`),
      "retention.ms=60000",
    );

    // The topic's retention is lowered, then the connector's offsets are reset: the new backfill warns.
    await kafka.alterTopicConfig(week, minute);
    assertEquals((await daemon.request("PUT", "/connectors/week/stop")).status, 204);
    await waitFor(
      async () =>
        (await daemon.request("GET", "/connectors/week/status")).body?.connector?.state === "STOPPED",
      30_000,
      "week STOPPED",
    );
    assertEquals((await daemon.request("DELETE", "/connectors/week/offsets")).status, 200);
    assertEquals((await daemon.request("PUT", "/connectors/week/resume")).status, 202);
    assertStringIncludes(
      await warningOf(daemon, "week", `topic ${week} deletes records older than 1 min`),
      "retention.ms=60000",
    );
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
