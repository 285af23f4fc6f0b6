/**
 * GroupMembership against the librdkafka mock's group coordinator: the leader's assign sees every member's
 * metadata and each member receives the bytes meant for it; a requested rejoin starts a new generation; a member
 * whose heartbeats fail for the session timeout is told it lost its membership, and joins again afterwards.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { type KafkaMock, startKafkaMock } from "../support/kafka_mock.ts";
import { createKafka } from "../../src/kafka/mod.ts";
import type { GroupAssignment, GroupMembershipHandler } from "../../src/kafka/mod.ts";
import { setLogLevel } from "../../src/observability/log.ts";
import { waitFor } from "./wait.ts";

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
  groupId: "workers",
  topic: "configs",
  protocol: "test-v1",
  sessionTimeoutMs: 4_000,
  heartbeatIntervalMs: 500,
  rebalanceTimeoutMs: 10_000,
};

/** Our Kafka client on the mock, whose "configs" topic (the membership's nominal subscription) is created. */
function clientWithConfigsTopic(mock: KafkaMock, requestTimeoutMs: number) {
  mock.createTopic("configs", 1, 1);
  return createKafka({
    brokers: [mock.bootstrapServers],
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
    await using mock = startKafkaMock({ brokers: 1 });
    const kafka = clientWithConfigsTopic(mock, 10_000);
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
        "both members in one generation with their own assignment",
      );
      const leader = a.assignments.at(-1)!.leader ? a : b;
      assertEquals(leader.seenByLeader.at(-1), ["a", "b"]);
      assert(a.assignments.at(-1)!.leader !== b.assignments.at(-1)!.leader, "exactly one leader");

      const generation = a.assignments.at(-1)!.generation;
      ma.requestRejoin();
      await waitFor(
        () => a.assignments.at(-1)!.generation > generation && b.assignments.at(-1)!.generation > generation,
        "a new generation after a requested rejoin",
      );
      // (No assertion that nobody lost membership: the librdkafka mock sometimes answers a SyncGroup racing a
      // join with INVALID_REQUEST, which the membership treats as lost and answers by joining again.)
    } finally {
      await Promise.all([ma.close(), mb.close()]);
    }
  },
});

Deno.test({
  name: "group membership: a member cut off from the coordinator learns it lost membership, then joins again",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using mock = startKafkaMock({ brokers: 1 });
    // Short timeouts, so requests to the stopped broker fail quickly.
    const kafka = clientWithConfigsTopic(mock, 2_000);
    const a = member("a");
    const ma = kafka.groupMembership(SETTINGS, a.handler);
    try {
      await ma.start();
      const joins = a.assignments.length;
      mock.brokerDown(1);
      await waitFor(() => a.lost.length > 0, "membership lost while the broker is down", 30_000);
      assert(/no successful heartbeat|stopped/.test(a.lost[0]), a.lost[0]);
      mock.brokerUp(1);
      await waitFor(() => a.assignments.length > joins, "joined again once the broker is back", 60_000);
    } finally {
      await ma.close();
    }
  },
});
