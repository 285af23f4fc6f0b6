/**
 * Group mode in the herder: a change of tasks.max moves a source table onto a task of this member from a task
 * that runs on another member. The task starts here only after the other member's task reported itself stopped
 * (its final offset written) and the group's offsets were read, so it is given that final offset, however the
 * change arrived: over REST on this member, or read from the shared config. A connector resumed from STOPPED
 * reads the group's offsets too (another member may have altered them meanwhile).
 *
 * The other member and the group's offsets topic are played by the test through the herder's seam to
 * runtime/group/ (TaskPlacement); tasks run a fixture worker that only reports RUNNING and stops when asked.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { Herder } from "../../../src/runtime/herder.ts";
import { ConnectorStateStore } from "../../../src/runtime/herder/connector_state_store.ts";
import { FileOffsetStore } from "../../../src/runtime/offsets/file_store.ts";
import type { OffsetStore, OffsetUpdate } from "../../../src/runtime/offsets/types.ts";
import type { ReportedTaskStatus, TaskPlacement } from "../../../src/runtime/herder/task_placement.ts";
import type { SourceOffsetEntry } from "../../../src/connect/task_api.ts";
import { CONNECTOR_PLUGINS } from "../../../src/daemon/plugins.ts";
import { sourceConnectorConfig } from "../../support/source_connector.ts";

const HERE = "here:8083";
const OTHER = "other:8083";
const PROBLEM = { table: "problem" };
/** What the other member's task 1 committed last, when it stopped. */
const FINAL = { sys_updated_on: "2026-01-01 10:00:00", sys_id: "final" };
/** What task 1 committed last on the member a rebalance round had just handed it to. */
const NEW_FINAL = { sys_updated_on: "2026-01-01 10:00:07", sys_id: "new-final" };
const NEW_OWNER = "new:8083";

const config = (tasksMax: number) => ({
  ...sourceConnectorConfig("http://127.0.0.1:9", "pw", { incident: "t.incident", problem: "t.problem" }),
  "tasks.max": String(tasksMax),
  name: "src",
});

/**
 * A placement where task 0 runs here and reading the group's offsets (`readOffsets`) is an event. `own` says
 * what the rest of the group reports.
 */
function groupPlacement(
  events: string[],
  readOffsets: () => void,
  own: Pick<TaskPlacement, "onTaskState" | "remoteTask" | "handedOver">,
): TaskPlacement {
  return {
    owns: (_connector, task) => task === 0,
    connectorWorker: () => HERE,
    readSharedOffsets: () => {
      events.push("read the group's offsets");
      readOffsets();
      return Promise.resolve();
    },
    requestRestart: () => Promise.resolve(),
    requestTaskRestart: () => Promise.resolve(),
    ...own,
  };
}

/**
 * The rest of the group: task 1 of `src` runs on the other member until it sees the change; then it writes its
 * final offset to the group's offsets and reports itself stopped (in that order, as a member does).
 */
class OtherMember {
  readonly events: string[] = [];
  #task1: ReportedTaskStatus = { state: "RUNNING", workerId: OTHER };
  #shared: OffsetUpdate[] = [];
  #stopping = false;

  constructor(private readonly store: OffsetStore) {}

  readonly placement: TaskPlacement = groupPlacement(this.events, () => this.store.set("src", this.#shared), {
    onTaskState: () => {},
    remoteTask: (_connector, task) => {
      if (task !== 1) return undefined;
      // Seen running once, it stops right after, as the other member would on reading the change.
      if (this.#task1.state === "RUNNING" && !this.#stopping) {
        this.#stopping = true;
        setTimeout(() => this.stopTask1(), 0);
      }
      return this.#task1;
    },
    handedOver: () => undefined,
  });

  stopTask1(): void {
    this.#shared = [{ partition: PROBLEM, offset: FINAL }];
    this.#task1 = { state: "UNASSIGNED", workerId: OTHER };
    this.events.push("task 1 stopped on the other member");
  }

  /** Another member's KIP-875 alter while the connector is stopped. */
  alter(offset: Record<string, string>): void {
    this.#shared = [{ partition: PROBLEM, offset }];
  }
}

/** Records, on the real file store, the offsets each task start is given (`sourceOffsetsOf` reads them). */
function recordStarts(store: OffsetStore, events: string[]): SourceOffsetEntry[][] {
  const starts: SourceOffsetEntry[][] = [];
  const getAll = store.getAll.bind(store);
  store.getAll = (connector: string): SourceOffsetEntry[] => {
    events.push("a task starts here");
    const entries = getAll(connector);
    starts.push(entries);
    return entries;
  };
  return starts;
}

/**
 * The rest of the group right after a rebalance round (generation 7) handed task 1 from the other member, which
 * stopped it (its UNASSIGNED of generation 6 is what this member read last), to a new member. The new member
 * starts task 1 with the old config (its RUNNING of generation 7 reaches this member a moment later), then sees
 * the change, writes task 1's final offset and reports it stopped. With `toHere`, the round handed task 1 to this
 * member instead, which applies the change before that assignment (its report of task 1 is recorded).
 */
class RoundJustHandedOver {
  readonly events: string[] = [];
  readonly reported: string[] = [];
  #task1: ReportedTaskStatus = { state: "UNASSIGNED", workerId: OTHER, generation: 6 };
  #shared: OffsetUpdate[] = [{ partition: PROBLEM, offset: FINAL }];
  #started = false;

  constructor(private readonly store: OffsetStore, private readonly toHere = false) {}

  readonly placement: TaskPlacement = groupPlacement(this.events, () => this.store.set("src", this.#shared), {
    onTaskState: (_connector, task, state) => this.reported.push(`${task} ${state}`),
    remoteTask: (_connector, task) => {
      if (task !== 1) return undefined;
      if (!this.#started && !this.toHere) {
        this.#started = true;
        setTimeout(() => this.#newOwner(), 50);
      }
      return this.#task1;
    },
    handedOver: (_connector, task) =>
      task === 1 ? { generation: 7, workerId: this.toHere ? HERE : NEW_OWNER } : undefined,
  });

  #newOwner(): void {
    this.#task1 = { state: "RUNNING", workerId: NEW_OWNER, generation: 7 };
    this.events.push("task 1 runs on its new owner");
    setTimeout(() => {
      this.#shared = [{ partition: PROBLEM, offset: NEW_FINAL }];
      this.#task1 = { state: "UNASSIGNED", workerId: NEW_OWNER, generation: 7 };
      this.events.push("task 1 stopped on its new owner");
    }, 50);
  }
}

interface GroupFixture {
  readonly events: string[];
  readonly placement: TaskPlacement;
}

async function groupHerder<M extends GroupFixture = OtherMember>(
  dir: string,
  member?: (store: OffsetStore) => M,
) {
  const store = new FileOffsetStore({ path: `${dir}/offsets.json` });
  await store.start();
  const other = member ? member(store) : new OtherMember(store) as unknown as M;
  const starts = recordStarts(store, other.events);
  const stateStore = new ConnectorStateStore(`${dir}/connectors.json`);
  await stateStore.load();
  const herder = new Herder({
    workerRaw: {},
    workerStrings: {},
    workerId: HERE,
    offsets: store,
    stateStore,
    placement: other.placement,
    plugins: CONNECTOR_PLUGINS,
    kafka: () => Promise.reject(new Error("no Kafka in this test")),
    gracefulTimeoutMs: 5000,
    taskThreadUrl: new URL("../fixtures/idle_task_thread.ts", import.meta.url),
  });
  await herder.start([{ name: "src", config: config(2) }]);
  other.events.length = 0; // from here on: the change
  return {
    herder,
    other,
    /** The offset of the moved table the task running here was given when it started. */
    given: () => starts.at(-1)?.find((e) => e.partition.table === PROBLEM.table)?.offset,
    [Symbol.asyncDispose]: async () => {
      await herder.shutdown();
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const expectedOrder = [
  "task 1 stopped on the other member",
  "read the group's offsets",
  "a task starts here",
];

Deno.test("a tasks.max change over REST here starts the moved table's task after its old task stopped elsewhere", async () => {
  await using g = await groupHerder(await Deno.makeTempDir());
  await g.herder.putConfig("src", config(1));
  assertEquals(g.other.events, expectedOrder);
  assertEquals(g.given(), FINAL);
  assertEquals(g.herder.allTasks().map((t) => t.task.taskId), [0]);
});

Deno.test("a tasks.max change read from the shared config does the same", async () => {
  await using g = await groupHerder(await Deno.makeTempDir());
  await g.herder.applyShared("src", { config: config(1), target: "RUNNING" });
  assertEquals(g.other.events, expectedOrder);
  assertEquals(g.given(), FINAL);
});

Deno.test("a connector resumed from STOPPED here starts with offsets another member altered meanwhile", async () => {
  await using g = await groupHerder(await Deno.makeTempDir());
  await g.herder.stop("src");
  const altered = { sys_updated_on: "2025-06-01 00:00:00", sys_id: "altered" };
  g.other.alter(altered);
  g.other.events.length = 0;
  await g.herder.resume("src");
  assertEquals(g.other.events, ["read the group's offsets", "a task starts here"]);
  assertEquals(g.given(), altered);
});

Deno.test("a change right after a round handed a task on waits for the new owner's status of that round", async () => {
  await using g = await groupHerder(await Deno.makeTempDir(), (store) => new RoundJustHandedOver(store));
  await g.herder.putConfig("src", config(1));
  assertEquals(g.other.events, [
    "task 1 runs on its new owner",
    "task 1 stopped on its new owner",
    "read the group's offsets",
    "a task starts here",
  ]);
  assertEquals(g.given(), NEW_FINAL);
});

Deno.test("a change applied before the round that handed a task here reports that task not started", async () => {
  const member = (store: OffsetStore) => new RoundJustHandedOver(store, true);
  await using g = await groupHerder(await Deno.makeTempDir(), member);
  await g.herder.applyShared("src", { config: config(1), target: "RUNNING" });
  assert(g.other.reported.includes("1 UNASSIGNED"), JSON.stringify(g.other.reported));
  assertEquals(g.other.events, ["read the group's offsets", "a task starts here"]);
});
