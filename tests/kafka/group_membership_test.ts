/**
 * GroupMembership against Kafka's group coordinator: on the real broker, the leader's assign sees every member's
 * metadata and each member receives the bytes meant for it, and a requested rejoin starts a new generation; on
 * the librdkafka mock (a broker outage), a member whose heartbeats fail is told it lost its membership, and joins
 * again afterwards.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { type KafkaMock, startKafkaMock } from "../support/kafka_mock.ts";
import { type KafkaBroker, startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { createKafka } from "../../src/kafka/mod.ts";
import type { GroupAssignment, GroupMembershipHandler } from "../../src/kafka/mod.ts";
import { setLogLevel } from "../../src/observability/log.ts";
import { waitFor } from "../support/wait.ts";

setLogLevel("error");

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const bytes = (s: string) => new TextEncoder().encode(s);

function member(name: string) {
  const assignments: GroupAssignment[] = [];
  const lost: string[] = [];
  const seenByLeader: string[][] = [];
  const handler: GroupMembershipHandler = {
    metadata: () => bytes(name),
    assign: (members) => {
      seenByLeader.push(members.map((m) => text(m.metadata)).sort());
      // Each member gets "for <its metadata>", proving the bytes travel to the right member.
      return Promise.resolve(new Map(members.map((m) => [m.memberId, bytes(`for ${text(m.metadata)}`)])));
    },
    onAssigned: (a) => {
      assignments.push(a);
      return Promise.resolve();
    },
    onLost: (reason) => void lost.push(reason),
  };
  return { handler, assignments, lost, seenByLeader };
}

const SETTINGS = {
  groupId: uniqueName("workers"),
  topic: uniqueName("configs"),
  protocol: "test-v1",
  sessionTimeoutMs: 4_000,
  heartbeatIntervalMs: 500,
  rebalanceTimeoutMs: 10_000,
};

/** Our Kafka client on a broker where the membership's nominal subscription (SETTINGS.topic) was created. */
async function clientWithConfigsTopic(broker: KafkaMock | KafkaBroker, requestTimeoutMs: number) {
  await broker.createTopic(SETTINGS.topic, 1, 1);
  return createKafka({
    brokers: [broker.bootstrapServers],
    clientId: "t",
    requestTimeoutMs,
    connectionTimeoutMs: Math.min(3_000, requestTimeoutMs / 2),
  });
}

Deno.test({
  name: "group membership: metadata to the leader, assignment bytes to each member, rejoin on request",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using broker = await startKafkaBroker();
    const kafka = await clientWithConfigsTopic(broker, 10_000);
    const a = member("a");
    const b = member("b");
    const ma = kafka.groupMembership(SETTINGS, a.handler);
    const mb = kafka.groupMembership(SETTINGS, b.handler);
    try {
      await Promise.all([ma.start(), mb.start()]);
      await waitFor(
        () =>
          [a, b].every((m) => text(m.assignments.at(-1)!.assignment) === `for ${m === a ? "a" : "b"}`) &&
          a.assignments.at(-1)!.generation === b.assignments.at(-1)!.generation,
        60_000,
        "both members in one generation with their own assignment",
      );
      const leader = a.assignments.at(-1)!.leader ? a : b;
      assertEquals(leader.seenByLeader.at(-1), ["a", "b"]);
      assert(a.assignments.at(-1)!.leader !== b.assignments.at(-1)!.leader, "exactly one leader");

      const generation = a.assignments.at(-1)!.generation;
      // The follower asks: the coordinator rebalances on a follower's rejoin only when its metadata changed.
      (leader === a ? mb : ma).requestRejoin();
      await waitFor(
        () => a.assignments.at(-1)!.generation > generation && b.assignments.at(-1)!.generation > generation,
        60_000,
        "a new generation after a requested rejoin",
      );
      assertEquals([a.lost, b.lost], [[], []], "no member lost its membership");
    } finally {
      await Promise.all([ma.close(), mb.close()]);
    }
  },
});

Deno.test({
  name:
    "group membership (mock broker down): a member cut off from the coordinator loses membership, then rejoins",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using mock = startKafkaMock({ brokers: 1 });
    // Short timeouts, so requests to the stopped broker fail quickly.
    const kafka = await clientWithConfigsTopic(mock, 2_000);
    const a = member("a");
    const ma = kafka.groupMembership(SETTINGS, a.handler);
    try {
      await ma.start();
      const joins = a.assignments.length;
      mock.brokerDown(1);
      await waitFor(() => a.lost.length > 0, 30_000, "membership lost while the broker is down");
      assert(/no successful heartbeat|stopped/.test(a.lost[0]), a.lost[0]);
      mock.brokerUp(1);
      await waitFor(() => a.assignments.length > joins, 60_000, "joined again once the broker is back");
    } finally {
      await ma.close();
    }
  },
});
