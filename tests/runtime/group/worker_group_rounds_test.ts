/**
 * What a round of the group protocol tells a member about handovers (worker_group.ts), through the membership's
 * callbacks: the leader lists every task it gives to a member that did not run it, with that member's
 * worker_id; a member knows a round's handovers as soon as it hears of the round, before applying it; its
 * statuses carry the latest generation it heard of; a gained task that does not run here is reported UNASSIGNED.
 *
 * The membership, the config and status stores and the herder are the test's: only their seams are used.
 */
import { assertEquals } from "../../support/assert.ts";
import { WorkerGroup } from "../../../src/runtime/group/worker_group.ts";
import type { ConfigTopicStore } from "../../../src/runtime/group/config_topic_store.ts";
import type { StatusTopicStore } from "../../../src/runtime/group/status_topic_store.ts";
import type { Herder } from "../../../src/runtime/herder.ts";
import type { GroupMembershipHandler, KafkaClient } from "../../../src/kafka/mod.ts";

const unit = (task: number) => JSON.stringify(["src", task]);
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const meta = (workerId: string, tasks: number[]) =>
  bytes({ workerId, configPosition: 0, tasks: tasks.map(unit), connectors: [] });

/** A member `b:8083` of a group whose membership only records its handler; the test plays the rounds. */
async function member() {
  const puts: string[] = [];
  let handler!: GroupMembershipHandler;
  const kafka = {
    groupMembership: (_options: unknown, h: GroupMembershipHandler) => {
      handler = h;
      return {
        start: () => Promise.resolve(),
        requestRejoin: () => {},
        memberId: () => "m-b",
        close: () => Promise.resolve(),
      };
    },
  } as unknown as KafkaClient;
  const config = {
    onChange: () => {},
    onRestart: () => {},
    names: () => [],
    get: () => undefined,
    position: () => 0,
    waitForPosition: () => Promise.resolve(),
  } as unknown as ConfigTopicStore;
  const status = {
    task: () => undefined,
    connector: () => undefined,
    putTask: (c: string, t: number, s: { state: string }, g: number) =>
      puts.push(`${c}-${t} ${s.state} @${g}`),
    putConnector: () => {},
  } as unknown as StatusTopicStore;
  // Two tasks of `src`; none runs here (the herder runs nothing).
  const herder = {
    work: () => [{ connector: "src", tasks: 2 }],
    reconcile: () => Promise.resolve(0),
    connectorStates: () => [],
    allTasks: () => [],
    applyShared: () => Promise.resolve(),
  } as unknown as Herder;
  const group = new WorkerGroup({
    kafka,
    groupId: "g",
    sessionTimeoutMs: 10_000,
    heartbeatIntervalMs: 3_000,
    rebalanceTimeoutMs: 60_000,
    config,
    configTopic: "configs",
    status,
    refreshOffsets: () => Promise.resolve(),
    workerId: () => "b:8083",
  });
  await group.start(herder);
  return { group, handler: () => handler, puts };
}

Deno.test("a round lists the tasks it hands to a new owner; a member knows them once it heard of the round", async () => {
  const { group, handler, puts } = await member();
  // The leader's side: a runs task 0; b joins with nothing, and task 1 (free) goes to b.
  const plan = await handler().assign([
    { memberId: "m-a", metadata: meta("a:8083", [0]) },
    { memberId: "m-b", metadata: meta("b:8083", []) },
  ]);
  const mine = JSON.parse(new TextDecoder().decode(plan.get("m-b")!));
  assertEquals(mine.handedOver, { [unit(1)]: "b:8083" });
  assertEquals(JSON.parse(new TextDecoder().decode(plan.get("m-a")!)).handedOver, mine.handedOver);

  // b hears of round 5: it knows the handover at once, and reports its gained task (which does not run here).
  const applied = handler().onAssigned({
    assignment: plan.get("m-b")!,
    memberId: "m-b",
    generation: 5,
    leader: true,
  });
  assertEquals(group.placement.handedOver("src", 1), { generation: 5, workerId: "b:8083" });
  assertEquals(group.placement.handedOver("src", 0), undefined);
  await applied;
  await handler().onJoinStart!();
  assertEquals(puts, ["src-1 UNASSIGNED @5"]);

  // Round 6 hands task 0 to c; heard, not applied yet: the handover is known and b's statuses say 6.
  const round6 = bytes({
    configPosition: 0,
    tasks: [unit(1)],
    connectors: [],
    handedOver: { [unit(0)]: "c:8083" },
  });
  handler().onAssigned({ assignment: round6, memberId: "m-b", generation: 6, leader: false });
  assertEquals(group.placement.handedOver("src", 0), { generation: 6, workerId: "c:8083" });
  assertEquals(group.placement.handedOver("src", 1), undefined);
  group.placement.onTaskState("src", 1, "RUNNING", undefined, []);
  assertEquals(puts.at(-1), "src-1 RUNNING @6");
  await handler().onJoinStart!();
});
