/**
 * One member of a worker group (`group.id`): decides, through Kafka's group coordinator, which tasks this daemon
 * runs, and tells the herder (through its TaskPlacement seam).
 *
 * Each join carries what this member runs (its metadata); the leader assigns with assignor.ts and sends each
 * member its units together with the config position it assigned from. A member then:
 *  1. reads the config topic up to that position (so it knows every connector the leader counted);
 *  2. stops the units it lost (tasks flush and commit; offsets are durable before anything else happens);
 *  3. re-reads the shared offsets topic when it gained source tasks, so they resume where their previous owner
 *     stopped, and starts them;
 *  4. asks for another rebalance when it gave units up, so the group can hand them on (never in the same round).
 * Steps 1–4 run outside kafkajs's join (heartbeats go on meanwhile); the next join waits for them, so the
 * metadata never understates what still runs here.
 *
 * A member that loses its membership (no heartbeat within the session timeout) stops everything on its own.
 * A config change that adds or removes tasks makes the member that reads it ask for a rebalance.
 */
import type { GroupAssignment, GroupMembership, KafkaClient } from "../../kafka/mod.ts";
import { setGroupMembers } from "../../instance/permit_registry.ts";
import { logger } from "../../observability/log.ts";
import { settlesWithin } from "../../common/delay.ts";
import type { Herder } from "../herder.ts";
import type { ReportedTaskStatus, TaskHandover, TaskPlacement } from "../herder/task_placement.ts";
import { assignUnits } from "./assignor.ts";
import type { ConfigTopicStore, ReadRestart } from "./config_topic_store.ts";
import type { StatusTopicStore } from "./status_topic_store.ts";

const log = logger("group");
const PROTOCOL = "tablesync-tasks-v1";

export interface WorkerGroupOptions {
  kafka: KafkaClient;
  groupId: string;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  rebalanceTimeoutMs: number;
  config: ConfigTopicStore;
  /** The config topic's name (the membership's nominal subscription). */
  configTopic: string;
  status: StatusTopicStore;
  /** Re-reads the shared source offsets (the topic store's refresh). */
  refreshOffsets: () => Promise<void>;
  /** This member's worker_id (host:port of its REST listener). */
  workerId: () => string;
}

/** Join metadata and assignment, as JSON in the group protocol's userData. */
interface MemberMetadata {
  workerId: string;
  configPosition: number;
  tasks: string[];
  connectors: string[];
}

interface MemberAssignment {
  configPosition: number;
  /** Members of the group in this generation: each takes its share of an instance's request budget. */
  members?: number;
  tasks: string[];
  connectors: string[];
  /**
   * Every task unit this round gives to a member that did not run it → that member's worker_id (the same for
   * every member): until the new owner reports the task from this generation on, older statuses are stale.
   */
  handedOver?: Record<string, string>;
}

/** A task unit's id: `["<connector>",<n>]`, so connector names may hold any character. */
function taskUnit(connector: string, task: number): string {
  return JSON.stringify([connector, task]);
}

export class WorkerGroup {
  readonly #o: WorkerGroupOptions;
  #herder: Herder | null = null;
  #membership: GroupMembership | null = null;
  #tasks = new Set<string>();
  #connectors = new Set<string>();
  #generation = -1;
  /** The latest round heard of (its assignment may still wait to be applied): its generation and handovers. */
  #heard: { generation: number; handedOver: Map<string, string> } = { generation: -1, handedOver: new Map() };
  /** Counts membership losses; an assignment being applied when one happens is abandoned. */
  #epoch = 0;
  /** The herder's work when the latest assignment was taken; a change means the group must assign again. */
  #assignedWork = "";
  #configChanges: Promise<void> = Promise.resolve();
  /** The reconcile of the latest assignment (or loss); the next join waits for it. */
  #settling: Promise<void> = Promise.resolve();
  #joined = false;

  constructor(options: WorkerGroupOptions) {
    this.#o = options;
  }

  /** The herder's placement seam. */
  readonly placement: TaskPlacement = {
    owns: (connector, task) => this.#tasks.has(taskUnit(connector, task)),
    onTaskState: (connector, task, state, trace, warnings) =>
      this.#reportTask(connector, task, { state, workerId: this.#o.workerId(), trace, warnings }),
    remoteTask: (connector, task) => this.#o.status.task(connector, task),
    handedOver: (connector, task) => this.#handedOver(connector, task),
    connectorWorker: (connector) => this.#o.status.connector(connector)?.workerId,
    readSharedOffsets: () => this.#o.refreshOffsets(),
    requestRestart: (connector, request) => this.#o.config.requestRestart(connector, request),
    requestTaskRestart: (connector, task) => this.#o.config.requestTaskRestart(connector, task),
  };

  /** Joins the group with the herder's connectors; resolves after the first assignment was taken. */
  async start(herder: Herder): Promise<void> {
    this.#herder = herder;
    this.#o.config.onChange((name, entry) => this.#configChanged(name, entry));
    this.#o.config.onRestart((request) => this.#restartRequested(request));
    // Changes read between the config's first read and now are applied (no-ops when already current).
    for (const name of this.#o.config.names()) this.#configChanged(name, this.#o.config.get(name));
    this.#membership = this.#o.kafka.groupMembership({
      groupId: this.#o.groupId,
      topic: this.#o.configTopic,
      protocol: PROTOCOL,
      sessionTimeoutMs: this.#o.sessionTimeoutMs,
      heartbeatIntervalMs: this.#o.heartbeatIntervalMs,
      rebalanceTimeoutMs: this.#o.rebalanceTimeoutMs,
    }, {
      metadata: () =>
        encode<MemberMetadata>({
          workerId: this.#o.workerId(),
          configPosition: this.#o.config.position(),
          tasks: [...this.#tasks],
          connectors: [...this.#connectors],
        }),
      assign: (members) => this.#assign(members),
      onJoinStart: () => this.#settling,
      onAssigned: (assignment) => {
        this.#heardRound(assignment);
        this.#settling = this.#settling.then(() => this.#take(assignment)).catch((e) => {
          // Its gained tasks are not counted as its own (see #take), so the next round hands them out again.
          log.error({ err: e }, "applying the group assignment failed; asking the group to assign again");
          this.#membership?.requestRejoin();
        });
        return Promise.resolve();
      },
      onLost: () => this.#release(),
    });
    await this.#membership.start();
    await this.#settling;
  }

  /** Whether the group assigned the connector to this member (which runs its zombie-fencing rounds). */
  ownsConnector(connector: string): boolean {
    return this.#connectors.has(connector);
  }

  /** Whether this member holds an assignment of the group now (for GET /ready). */
  get joined(): boolean {
    return this.#joined;
  }

  /** Leaves the group (the herder must have stopped its tasks first, so successors never overlap). */
  async close(): Promise<void> {
    await this.#membership?.close();
  }

  async #assign(members: { memberId: string; metadata: Uint8Array }[]): Promise<Map<string, Uint8Array>> {
    const metas = members.map(({ memberId, metadata }) => ({
      memberId,
      meta: decode<MemberMetadata>(metadata),
    }));
    // The leader assigns from a config at least as new as every member's.
    const position = Math.max(this.#o.config.position(), ...metas.map((m) => m.meta?.configPosition ?? 0));
    await this.#configAt(position);
    const work = this.#herder!.work();
    const tasks = assignUnits(
      work.flatMap(({ connector, tasks }) => Array.from({ length: tasks }, (_, n) => taskUnit(connector, n))),
      metas.map(({ memberId, meta }) => ({ memberId, owned: meta?.tasks ?? [] })),
    );
    const connectors = assignUnits(
      work.map(({ connector }) => connector),
      metas.map(({ memberId, meta }) => ({ memberId, owned: meta?.connectors ?? [] })),
    );
    const handedOver: Record<string, string> = {};
    for (const { memberId, meta } of metas) {
      const owned = new Set(meta?.tasks ?? []);
      for (const unit of tasks.get(memberId) ?? []) {
        if (!owned.has(unit) && meta) handedOver[unit] = meta.workerId;
      }
    }
    log.info(
      { members: members.length, tasks: [...tasks].map(([m, t]) => `${m}:${t.length}`) },
      "assigned the group's tasks",
    );
    return new Map(members.map(({ memberId }) => [
      memberId,
      encode<MemberAssignment>({
        configPosition: position,
        members: members.length,
        tasks: tasks.get(memberId) ?? [],
        connectors: connectors.get(memberId) ?? [],
        handedOver,
      }),
    ]));
  }

  /**
   * Waits until this member applied the config up to `position`, at most the rebalance timeout: a connector
   * read later is started then (its tasks are owned already), so a slow config read delays, never blocks.
   */
  async #configAt(position: number): Promise<void> {
    const inTime = await settlesWithin(this.#o.config.waitForPosition(position), this.#o.rebalanceTimeoutMs);
    // The herder applies what the store read in order; assignments are made from what it applied.
    if (inTime) await this.#configChanges;
    else {
      log.warn(
        { position, at: this.#o.config.position() },
        "the config topic was not read up to the group's position in time",
      );
    }
  }

  async #take(received: GroupAssignment): Promise<void> {
    const assignment = decode<MemberAssignment>(received.assignment);
    if (!assignment) {
      log.warn({ generation: received.generation }, "the group assignment was empty or unreadable");
      return;
    }
    this.#generation = received.generation;
    this.#joined = true;
    setGroupMembers(assignment.members ?? 1);
    const epoch = this.#epoch;
    await this.#configAt(assignment.configPosition);
    if (epoch !== this.#epoch) return; // membership was lost meanwhile: this assignment is void
    this.#assignedWork = JSON.stringify(this.#herder!.work());
    const next = new Set(assignment.tasks);
    const gained = [...next].filter((u) => !this.#tasks.has(u));
    const revoked = [...this.#tasks].filter((u) => !next.has(u)).length +
      [...this.#connectors].filter((c) => !assignment.connectors.includes(c)).length;
    this.#connectors = new Set(assignment.connectors);
    // Revoked tasks stop first (offsets flushed), then gained source tasks read the group's latest offsets.
    this.#tasks = new Set([...this.#tasks].filter((u) => next.has(u)));
    await this.#herder!.reconcile();
    if (gained.length > 0) await this.#o.refreshOffsets();
    if (epoch !== this.#epoch) return;
    this.#tasks = next;
    await this.#herder!.reconcile();
    this.#reportIdle(gained);
    const states = new Map(this.#herder!.connectorStates().map((c) => [c.connector, c.state]));
    for (const connector of this.#connectors) {
      const state = states.get(connector) ?? "UNASSIGNED";
      this.#o.status.putConnector(connector, { state, workerId: this.#o.workerId() }, this.#generation);
    }
    log.info(
      {
        generation: received.generation,
        leader: received.leader,
        tasks: next.size,
        gained: gained.length,
        revoked,
      },
      "took the group assignment",
    );
    if (revoked > 0) this.#membership?.requestRejoin();
  }

  /** Membership lost: stops everything at once, without waiting for an assignment still being applied. */
  #release(): void {
    this.#joined = false;
    this.#epoch++;
    this.#tasks.clear();
    this.#connectors.clear();
    const stopping = this.#herder!.reconcile().then(
      () => {},
      (e) => log.error({ err: e }, "stopping tasks after losing group membership failed"),
    );
    // The next join waits until they stopped, so its metadata never understates what runs here.
    this.#settling = Promise.all([this.#settling, stopping]).then(() => {});
  }

  #reportTask(connector: string, task: number, status: ReportedTaskStatus): void {
    // The latest round heard of: a status written now already answers for what that round handed over.
    this.#o.status.putTask(connector, task, status, Math.max(this.#generation, this.#heard.generation));
  }

  /** Records the handovers of a round as soon as it is heard of, before its assignment is applied here. */
  #heardRound(received: GroupAssignment): void {
    if (received.generation < this.#heard.generation) return;
    const handedOver = decode<MemberAssignment>(received.assignment)?.handedOver ?? {};
    this.#heard = { generation: received.generation, handedOver: new Map(Object.entries(handedOver)) };
  }

  #handedOver(connector: string, task: number): TaskHandover | undefined {
    const workerId = this.#heard.handedOver.get(taskUnit(connector, task));
    return workerId === undefined ? undefined : { generation: this.#heard.generation, workerId };
  }

  /**
   * Gained tasks that do not run here after all (the connector's new config has fewer tasks, or it is
   * stopped) are reported UNASSIGNED from this generation on, so a member waiting for them to stop goes on.
   */
  #reportIdle(gained: readonly string[]): void {
    const running = new Set(
      this.#herder!.allTasks().map(({ connector, task }) => taskUnit(connector, task.taskId)),
    );
    for (const unit of gained) {
      if (running.has(unit)) continue;
      const [connector, task] = JSON.parse(unit) as [string, number];
      this.#reportTask(connector, task, { state: "UNASSIGNED", workerId: this.#o.workerId() });
    }
  }

  /** Applies shared config changes one after the other, in the order the config topic holds them. */
  #configChanged(name: string, entry: ReturnType<ConfigTopicStore["get"]>): void {
    this.#configChanges = this.#configChanges.then(() => this.#applyConfigChange(name, entry)).catch((e) =>
      log.error({ err: e, connector: name }, "applying a shared config change failed")
    );
  }

  /** Applies a restart request (any member's) to what runs here, in order with the config changes around it. */
  #restartRequested(request: ReadRestart): void {
    const herder = this.#herder!;
    this.#configChanges = this.#configChanges.then(() =>
      "task" in request
        ? herder.applyTaskRestart(request.connector, request.task)
        : herder.applyRestart(request.connector, request)
    ).catch((e) => log.error({ err: e, connector: request.connector }, "applying a restart request failed"));
  }

  async #applyConfigChange(name: string, entry: ReturnType<ConfigTopicStore["get"]>): Promise<void> {
    const herder = this.#herder!;
    // The herder reads the group's offsets before tasks start here after a change (connector_lifecycle.ts).
    await herder.applyShared(name, entry ? { config: entry.config, target: entry.target } : null);
    // Tasks added or removed since the last assignment (by this change or a REST change here): assign again.
    if (this.#assignedWork !== "" && JSON.stringify(herder.work()) !== this.#assignedWork) {
      this.#membership?.requestRejoin();
    }
  }
}

function encode<T>(value: T): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}

function decode<T>(bytes: Uint8Array): T | null {
  if (bytes.length === 0) return null;
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as T;
  } catch {
    return null;
  }
}
