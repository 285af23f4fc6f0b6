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
import { logger } from "../../observability/log.ts";
import type { Herder } from "../herder.ts";
import type { TaskPlacement } from "../task_placement.ts";
import type { TaskState } from "../task_runner.ts";
import { assignUnits } from "./assignor.ts";
import type { ConfigTopicStore } from "./config_topic_store.ts";
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
  tasks: string[];
  connectors: string[];
}

/** A task unit's id: `["<connector>",<n>]`, so connector names may hold any character. */
export function taskUnit(connector: string, task: number): string {
  return JSON.stringify([connector, task]);
}

export class WorkerGroup {
  readonly #o: WorkerGroupOptions;
  #herder: Herder | null = null;
  #membership: GroupMembership | null = null;
  #tasks = new Set<string>();
  #connectors = new Set<string>();
  #generation = -1;
  /** The herder's work when the latest assignment was taken; a change means the group must assign again. */
  #assignedWork = "";
  /** The reconcile of the latest assignment (or loss); the next join waits for it. */
  #settling: Promise<void> = Promise.resolve();

  constructor(options: WorkerGroupOptions) {
    this.#o = options;
  }

  /** The herder's placement seam. */
  readonly placement: TaskPlacement = {
    owns: (connector, task) => this.#tasks.has(taskUnit(connector, task)),
    onTaskState: (connector, task, state, trace) => this.#reportTask(connector, task, state, trace),
    remoteTask: (connector, task) => this.#o.status.task(connector, task),
    connectorWorker: (connector) => this.#o.status.connector(connector)?.workerId,
  };

  /** Joins the group with the herder's connectors; resolves after the first assignment was taken. */
  async start(herder: Herder): Promise<void> {
    this.#herder = herder;
    this.#o.config.onChange((name, entry) => this.#configChanged(name, entry));
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
        this.#settling = this.#settling.then(() => this.#take(assignment)).catch((e) =>
          log.error({ err: e }, "applying the group assignment failed")
        );
        return Promise.resolve();
      },
      onLost: () => {
        this.#settling = this.#settling.then(() => this.#release()).catch((e) =>
          log.error({ err: e }, "stopping tasks after losing group membership failed")
        );
      },
    });
    await this.#membership.start();
    await this.#settling;
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
    await this.#o.config.waitForPosition(position);
    const work = this.#herder!.work();
    const tasks = assignUnits(
      work.flatMap(({ connector, tasks }) => Array.from({ length: tasks }, (_, n) => taskUnit(connector, n))),
      metas.map(({ memberId, meta }) => ({ memberId, owned: meta?.tasks ?? [] })),
    );
    const connectors = assignUnits(
      work.map(({ connector }) => connector),
      metas.map(({ memberId, meta }) => ({ memberId, owned: meta?.connectors ?? [] })),
    );
    log.info(
      { members: members.length, tasks: [...tasks].map(([m, t]) => `${m}:${t.length}`) },
      "assigned the group's tasks",
    );
    return new Map(members.map(({ memberId }) => [
      memberId,
      encode<MemberAssignment>({
        configPosition: position,
        tasks: tasks.get(memberId) ?? [],
        connectors: connectors.get(memberId) ?? [],
      }),
    ]));
  }

  async #take(received: GroupAssignment): Promise<void> {
    const assignment = decode<MemberAssignment>(received.assignment);
    if (!assignment) {
      log.warn({ generation: received.generation }, "the group assignment was empty or unreadable");
      return;
    }
    this.#generation = received.generation;
    await this.#o.config.waitForPosition(assignment.configPosition);
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
    this.#tasks = next;
    await this.#herder!.reconcile();
    for (const connector of this.#connectors) {
      this.#o.status.putConnector(
        connector,
        { state: "RUNNING", workerId: this.#o.workerId() },
        this.#generation,
      );
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

  async #release(): Promise<void> {
    this.#tasks.clear();
    this.#connectors.clear();
    await this.#herder!.reconcile();
  }

  #reportTask(connector: string, task: number, state: TaskState, trace: string | undefined): void {
    this.#o.status.putTask(connector, task, { state, workerId: this.#o.workerId(), trace }, this.#generation);
  }

  #configChanged(name: string, entry: ReturnType<ConfigTopicStore["get"]>): void {
    const herder = this.#herder!;
    herder.applyShared(name, entry ? { config: entry.config, target: entry.target } : null).then(() => {
      // Tasks added or removed since the last assignment (by this change or a REST change here): assign again.
      if (this.#assignedWork !== "" && JSON.stringify(herder.work()) !== this.#assignedWork) {
        this.#membership?.requestRejoin();
      }
    }).catch((e) => log.error({ err: e, connector: name }, "applying a shared config change failed"));
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
