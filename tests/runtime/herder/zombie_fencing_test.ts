/**
 * zombie_fencing.ts: which transactional ids a round fences, when it only records the task count, who runs it
 * (the process that runs the connector's rounds; the others wait for its record), and that a superseded or
 * failed round is not taken as done. The broker side (fenceProducers against Kafka) is covered by
 * tests/kafka/transaction_fencing_test.ts and tests/integration/exactly_once_fencing_round_test.ts.
 */
import { assertEquals, assertRejects } from "../../support/assert.ts";
import type { KafkaClient } from "../../../src/kafka/mod.ts";
import { setLogLevel } from "../../../src/observability/log.ts";
import { configHash, type TaskCountRecord } from "../../../src/runtime/herder/connector_state_store.ts";
import { SupersededRound, ZombieFencing } from "../../../src/runtime/herder/zombie_fencing.ts";

setLogLevel("error");

/** Task count records in memory, and the fenceProducers calls a client received. */
function setUp(options: { runsRounds?: () => boolean; failFencing?: boolean } = {}) {
  const records = new Map<string, TaskCountRecord>();
  const writes: [string, TaskCountRecord][] = [];
  const fenced: string[][] = [];
  let failFencing = options.failFencing ?? false;
  const kafka = {
    fenceProducers(ids: string[]) {
      if (failFencing) return Promise.reject(new Error("broker unreachable"));
      fenced.push(ids);
      return Promise.resolve();
    },
  } as unknown as KafkaClient;
  const fencing = new ZombieFencing({
    kafka: () => Promise.resolve(kafka),
    records: {
      taskCountRecord: (c) => records.get(c),
      putTaskCountRecord: (c, r) => {
        writes.push([c, r]);
        records.set(c, r);
        return Promise.resolve();
      },
    },
    groupId: "workers",
    runsRounds: options.runsRounds ?? (() => true),
    recheckMs: 5,
  });
  return { fencing, records, writes, fenced, healFencing: () => failFencing = false };
}

const always = () => true;

Deno.test("a new config fences every id of the previous task count, then records its own count", async () => {
  const { fencing, records, writes, fenced } = setUp();
  records.set("src", { taskCount: 2, configHash: "earlier" });
  const config = { name: "src", "tasks.max": "1" };
  await fencing.ready("src", config, 1, always);
  assertEquals(fenced, [["workers-src-0", "workers-src-1"]]);
  assertEquals(writes, [["src", { taskCount: 1, configHash: await configHash(config) }]]);
  // Its tasks (restarts too) find the round recorded: nothing is fenced again.
  await fencing.ready("src", config, 1, always);
  await fencing.ready("src", { ...config }, 1, always);
  assertEquals(fenced.length, 1);
  assertEquals(writes.length, 1);
});

Deno.test("growing from one task fences the one, so no old task 0 writes a table the new task 1 took", async () => {
  const { fencing, records, fenced } = setUp();
  records.set("src", { taskCount: 1, configHash: "earlier" });
  await fencing.ready("src", { name: "src", "tasks.max": "3" }, 3, always);
  assertEquals(fenced, [["workers-src-0"]]);
});

Deno.test("as in Connect, a round only records the count without a record, or with one task before and after", async () => {
  const { fencing, records, writes, fenced } = setUp();
  await fencing.ready("new", { name: "new" }, 2, always);
  records.set("single", { taskCount: 1, configHash: "earlier" });
  await fencing.ready("single", { name: "single", "svc.tables": "a,b" }, 1, always);
  assertEquals(fenced, []);
  assertEquals(writes.map(([c, r]) => [c, r.taskCount]), [["new", 2], ["single", 1]]);
});

Deno.test("a process that does not run the connector's rounds waits for the record, and runs the round once it does", async () => {
  let runs = false;
  const { fencing, records, writes, fenced } = setUp({ runsRounds: () => runs });
  records.set("src", { taskCount: 2, configHash: "earlier" });
  const config = { name: "src", "tasks.max": "1" };
  let ready = false;
  const waiting = fencing.ready("src", config, 1, always).then(() => ready = true);
  await new Promise((r) => setTimeout(r, 30));
  assertEquals([ready, fenced.length, writes.length], [false, 0, 0]);
  // Another member records the round: the tasks here start without fencing anything themselves.
  records.set("src", { taskCount: 1, configHash: await configHash(config) });
  await waiting;
  assertEquals(fenced, []);

  // The group assigns the connector here while a newer config waits: this process runs its round.
  const newer = { name: "src", "tasks.max": "2" };
  const round = fencing.ready("src", newer, 2, always);
  await new Promise((r) => setTimeout(r, 30));
  assertEquals(fenced, []);
  runs = true;
  await round;
  assertEquals(fenced, [["workers-src-0"]]);
  assertEquals(records.get("src"), { taskCount: 2, configHash: await configHash(newer) });
});

Deno.test("a superseded config's round rejects; a failed round is not remembered, so a restart tries again", async () => {
  const { fencing, writes } = setUp({ runsRounds: () => false });
  let current = true;
  const superseded = fencing.ready("src", { name: "src" }, 1, () => current);
  current = false;
  await assertRejects(
    () => superseded,
    SupersededRound,
    "changed before its zombie-fencing round was recorded",
  );
  assertEquals(writes, []);

  const failing = setUp({ failFencing: true });
  failing.records.set("src", { taskCount: 2, configHash: "earlier" });
  const config = { name: "src", "tasks.max": "1" };
  await assertRejects(() => failing.fencing.ready("src", config, 1, always), Error, "broker unreachable");
  assertEquals(failing.writes, [], "nothing recorded: the tasks must not start");
  failing.healFencing();
  await failing.fencing.ready("src", config, 1, always);
  assertEquals(failing.fenced, [["workers-src-0", "workers-src-1"]]);
});
