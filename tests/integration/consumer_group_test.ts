/**
 * The sink's consumer group with the real group coordinator (the mock has its own, simpler one):
 *  - two tasks join one group `connect-<name>` and share a four-partition topic: the coordinator reports a
 *    Stable group of two members, every record becomes a PATCH of its row, and the committed offsets reach the end of every partition;
 *  - the REST offsets endpoints use admin calls on that group: GET equals what an independent admin client reads,
 *    PATCH is refused while the connector runs (the group has members), and once STOPPED (the group is Empty)
 *    PATCH and DELETE change the committed offsets the coordinator holds.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { produceRecords } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Group-Wren-19";

Deno.test("sink consumer group on the real coordinator: two members, commits, REST offsets via admin calls", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 200 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("group.in");
  const name = uniqueName("grouped");
  const group = `connect-${name}`;
  await kafka.createTopic(topic, 4);
  const incident = sim.table("incident");
  const ids = incident.sysIds();
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name,
      config: {
        "connector.class": "TableSinkConnector",
        "tasks.max": 2,
        "topics": topic,
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": PASSWORD,
        "svc.sink.table": "incident",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": false,
      },
    }],
  });
  try {
    const described = await waitFor(
      async () => {
        const g = await kafka.describeGroup(group);
        return g.state === "Stable" && g.members === 2 ? g : null;
      },
      30_000,
      "a Stable group of two members",
    );
    assertEquals(described, { state: "Stable", members: 2 });

    await produceRecords(
      kafka.bootstrapServers,
      topic,
      ids.map((id) => ({ key: id, value: JSON.stringify({ short_description: `grouped ${id}` }) })),
    );
    // Every record reached the instance as a successful PATCH of its row (the simulator may silently keep a
    // write-protected field, as the real instance does, so the journal is the witness, not the row).
    const patched = () =>
      new Set(
        sim.journal.entries().filter((e) => e.method === "PATCH" && e.status === 200).map((e) =>
          e.path.split("/").pop()
        ),
      );
    await waitFor(() => ids.every((id) => patched().has(id)), 60_000, "a PATCH of every row").catch((e) => {
      throw new Error(`${e.message}\n${daemon.output().slice(-4000)}`);
    });
    const committed = await waitFor(
      async () => {
        const o = await kafka.groupOffsets(group, topic);
        return Object.values(o).reduce((a, b) => a + b, 0) === ids.length ? o : null;
      },
      30_000,
      "commits up to the end of every partition",
    );
    assertEquals(Object.keys(committed).length, 4);

    const rest = (await daemon.request("GET", `/connectors/${name}/offsets`)).body.offsets as {
      partition: { kafka_topic: string; kafka_partition: number };
      offset: { kafka_offset: number };
    }[];
    assertEquals(
      Object.fromEntries(
        rest.map((o) => [`${o.partition.kafka_topic}/${o.partition.kafka_partition}`, o.offset.kafka_offset]),
      ),
      committed,
    );

    const partition = { kafka_topic: topic, kafka_partition: 0 };
    const running = await daemon.request("PATCH", `/connectors/${name}/offsets`, {
      offsets: [{ partition, offset: { kafka_offset: 1 } }],
    });
    assertEquals(running.status, 400, "altering offsets needs a STOPPED connector");

    assertEquals((await daemon.request("PUT", `/connectors/${name}/stop`)).status, 204);
    await waitFor(async () => (await kafka.describeGroup(group)).state === "Empty", 30_000, "an Empty group");
    // Refused with a 400 naming what is wrong: a partition the topic lacks (was a 500 with the broker's raw
    // "This server does not host this topic-partition"), a topic that does not exist, a negative offset (was
    // "need to be integers").
    const refusals: [Record<string, unknown>, string][] = [
      [
        { partition: { kafka_topic: topic, kafka_partition: 9 }, offset: { kafka_offset: 1 } },
        `The offsets name partition 9 of topic '${topic}', which has partitions 0 to 3`,
      ],
      [
        { partition: { kafka_topic: `${topic}.none`, kafka_partition: 0 }, offset: { kafka_offset: 1 } },
        `The offsets name topic '${topic}.none', which does not exist`,
      ],
      [
        { partition, offset: { kafka_offset: -1 } },
        "The Kafka offset value -1 in the provided offsets is negative; offsets start at 0",
      ],
    ];
    for (const [entry, message] of refusals) {
      const refused = await daemon.request("PATCH", `/connectors/${name}/offsets`, { offsets: [entry] });
      assertEquals(refused.status, 400, JSON.stringify(refused.body));
      assertStringIncludes(String((refused.body as { message: string }).message), message);
    }
    assertEquals((await kafka.groupOffsets(group, topic))[`${topic}/0`], committed[`${topic}/0`]);
    const patch = await daemon.request("PATCH", `/connectors/${name}/offsets`, {
      offsets: [{ partition, offset: { kafka_offset: 1 } }],
    });
    assertEquals(patch.status, 200, JSON.stringify(patch.body));
    assertEquals((await kafka.groupOffsets(group, topic))[`${topic}/0`], 1);
    assertEquals((await daemon.request("DELETE", `/connectors/${name}/offsets`)).status, 200);
    assertEquals(await kafka.groupOffsets(group, topic), {});
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
