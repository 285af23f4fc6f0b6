/**
 * Membership in a worker group through Kafka's group coordinator (JoinGroup / SyncGroup / Heartbeat), as Kafka
 * Connect's distributed workers do: the coordinator detects members that leave or die, picks a leader, and the
 * leader's assignor turns every member's metadata into each member's assignment. No coordination of our own.
 *
 * Built on a kafkajs consumer with a custom partition assigner:
 *  - each member's metadata carries `handler.metadata()` as the subscription's userData;
 *  - the leader's `assign` receives every member's userData and returns each member's assignment bytes as the
 *    assignment's userData, with no partitions (nothing is fetched; the consumer only keeps membership alive);
 *  - kafkajs drops the userData of the assignment it receives, so SyncGroup responses are captured by a small
 *    patch of the broker's `syncGroup` (keyed by group and member id) and handed to `onAssigned`.
 * The consumer subscribes to one existing topic (the coordinator wants a subscription); no partition of it is
 * ever assigned.
 *
 * Liveness: a member must not keep working once the group may have given its work away. The coordinator expires
 * a member `sessionTimeoutMs` after the last heartbeat it received, which is no later than our last successful
 * one; so when no heartbeat has succeeded for `sessionTimeoutMs − heartbeatIntervalMs` (at least half the
 * session; no join in flight), `onLost` is called and the member stops its work on its own, before the group can
 * hand it on. If heartbeats succeed again (the coordinator had not expired it after all), the member asks for a
 * rebalance so that its work is assigned again; otherwise kafkajs rejoins and `onAssigned` follows.
 */
import BrokerModule from "kafkajs/src/broker/index.js";
import { AssignerProtocol, type Consumer as KafkajsConsumer } from "kafkajs";
import type { Logger } from "../observability/log.ts";
import { type GroupHooks, hookedAssignerWith, type KafkajsConsumerGroup } from "./rebalance_hook.ts";
import type { GroupMembership, GroupMembershipHandler, GroupMembershipOptions } from "./types.ts";

// deno-lint-ignore no-explicit-any
const Broker = BrokerModule as any;
const CAPTURED = Symbol.for("tablesync.kafkajs.syncGroupCaptured");
/** `${groupId}\u0000${memberId}` → the member assignment bytes of the last SyncGroup response. */
const lastSyncAssignments = new Map<string, Uint8Array>();

if (!Broker.prototype[CAPTURED]) {
  Broker.prototype[CAPTURED] = true;
  const original = Broker.prototype.syncGroup;
  Broker.prototype.syncGroup = async function (
    this: unknown,
    request: { groupId: string; memberId: string },
  ) {
    const response = await original.call(this, request);
    if (response?.memberAssignment) {
      lastSyncAssignments.set(`${request.groupId}\u0000${request.memberId}`, response.memberAssignment);
    }
    return response;
  };
}

/** Pause before a member whose group consumer stopped for good joins again. */
const RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;

/** Thrown from the heartbeat path to make kafkajs's runner rejoin the group (it rejoins on rebalance errors). */
class RejoinRequested extends Error {
  type = "REBALANCE_IN_PROGRESS";
  retriable = true;
  constructor() {
    super("this member asked for a rebalance");
  }
}

export class KafkajsGroupMembership implements GroupMembership {
  readonly #consumer: KafkajsConsumer;
  readonly #options: GroupMembershipOptions;
  readonly #handler: GroupMembershipHandler;
  readonly #log: Logger;
  #group: KafkajsConsumerGroup | null = null;
  #rejoin = false;
  /** Sent with the metadata; a requested rejoin changes it, so the coordinator rebalances (see withRejoinCount). */
  #rejoinCount = 0;
  #joining = false;
  #lastAlive = Date.now();
  #lost = false;
  #watchdog: ReturnType<typeof setInterval> | undefined;
  #restart: ReturnType<typeof setTimeout> | undefined;
  #closed: Promise<void> | null = null;
  #firstAssignment = Promise.withResolvers<void>();

  constructor(
    createConsumer: (assigner: unknown) => KafkajsConsumer,
    options: GroupMembershipOptions,
    handler: GroupMembershipHandler,
    log: Logger,
  ) {
    this.#options = options;
    this.#handler = handler;
    this.#log = log;
    const hooks: GroupHooks = {
      beforeJoin: async (group) => {
        this.#adopt(group);
        this.#joining = true;
        await this.#handler.onJoinStart?.();
      },
      afterJoin: async (group) => {
        this.#adopt(group);
        this.#joining = false;
        this.#alive();
        const key = `${group.groupId}\u0000${group.memberId}`;
        const bytes = lastSyncAssignments.get(key);
        lastSyncAssignments.delete(key);
        const userData = bytes
          ? AssignerProtocol.MemberAssignment.decode(bytes as never)?.userData
          : undefined;
        await this.#handler.onAssigned({
          assignment: userData ? new Uint8Array(userData) : new Uint8Array(),
          memberId: group.memberId,
          generation: group.generationId,
          leader: group.isLeader(),
        });
        this.#firstAssignment.resolve();
      },
    };
    const protocol = options.protocol;
    const assigner = hookedAssignerWith(hooks, () => ({
      name: protocol,
      version: 1,
      protocol: ({ topics }: { topics: string[] }) => ({
        name: protocol,
        metadata: AssignerProtocol.MemberMetadata.encode({
          version: 1,
          topics,
          userData: Buffer.from(withRejoinCount(this.#rejoinCount, this.#handler.metadata())),
        }),
      }),
      assign: async ({ members }: { members: Array<{ memberId: string; memberMetadata: Uint8Array }> }) => {
        const decoded = members.map(({ memberId, memberMetadata }) => ({
          memberId,
          metadata: withoutRejoinCount(
            new Uint8Array(AssignerProtocol.MemberMetadata.decode(memberMetadata as never)!.userData),
          ),
        }));
        const assignments = await this.#handler.assign(decoded);
        return members.map(({ memberId }) => ({
          memberId,
          memberAssignment: AssignerProtocol.MemberAssignment.encode({
            version: 1,
            assignment: {},
            userData: Buffer.from(assignments.get(memberId) ?? new Uint8Array()),
          }),
        }));
      },
    }));
    this.#consumer = createConsumer(assigner);
    this.#consumer.on(this.#consumer.events.HEARTBEAT, () => this.#alive());
    this.#consumer.on(this.#consumer.events.CRASH, ({ payload }) => {
      if (this.#closed) return;
      this.#log.error({ err: payload.error, restart: payload.restart }, "group membership crashed");
      if (payload.restart) return; // kafkajs rejoins by itself
      // An error kafkajs deems final (e.g. a coordinator answering INVALID_REQUEST during a join race): give up
      // the work, then join again as a new member after a pause.
      this.#loseMembership(`the group consumer stopped: ${payload.error.message}`);
      this.#group = null;
      this.#rejoinAfter(RESTART_DELAY_MS);
    });
  }

  /** Joins again after `delayMs`; while Kafka cannot be reached, tries again with the delay doubled (to 30 s). */
  #rejoinAfter(delayMs: number): void {
    clearTimeout(this.#restart);
    this.#restart = setTimeout(() => {
      if (this.#closed) return;
      this.#run().catch((e) => {
        if (this.#closed) return;
        const next = Math.min(delayMs * 2, MAX_RESTART_DELAY_MS);
        this.#log.warn({ err: e, retryInMs: next }, "rejoining the group failed; retrying");
        this.#rejoinAfter(next);
      });
    }, delayMs);
  }

  async start(): Promise<void> {
    await this.#run();
    const interval = Math.max(100, Math.min(1000, this.#options.heartbeatIntervalMs / 2));
    this.#watchdog = setInterval(() => this.#checkAlive(), interval);
    await this.#firstAssignment.promise;
  }

  requestRejoin(): void {
    this.#rejoin = true;
  }

  memberId(): string | null {
    return this.#group?.memberId ?? null;
  }

  async #run(): Promise<void> {
    await this.#consumer.connect();
    await this.#consumer.subscribe({ topics: [this.#options.topic] });
    await this.#consumer.run({ autoCommit: false, eachBatch: () => Promise.resolve() });
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      clearInterval(this.#watchdog);
      clearTimeout(this.#restart);
      this.#firstAssignment.resolve();
      await this.#consumer.disconnect();
    })();
    return this.#closed;
  }

  /** Wraps the group's heartbeat once, so a requested rejoin surfaces as a rebalance error in kafkajs's runner. */
  #adopt(group: KafkajsConsumerGroup): void {
    if (this.#group === group) return;
    this.#group = group;
    const heartbeat = group.heartbeat.bind(group);
    group.heartbeat = (args: unknown) => {
      if (this.#rejoin) {
        this.#rejoin = false;
        this.#rejoinCount = (this.#rejoinCount + 1) >>> 0;
        return Promise.reject(new RejoinRequested());
      }
      return heartbeat(args);
    };
  }

  #alive(): void {
    this.#lastAlive = Date.now();
    if (this.#lost) this.#rejoin = true; // it gave its work up: let the group assign it again
    this.#lost = false;
  }

  #checkAlive(): void {
    if (this.#lost || this.#closed) return;
    const silentFor = Date.now() - this.#lastAlive;
    // A member waiting in JoinGroup keeps its membership until the rebalance timeout.
    const { sessionTimeoutMs, heartbeatIntervalMs, rebalanceTimeoutMs } = this.#options;
    const limit = this.#joining
      ? rebalanceTimeoutMs
      : Math.max(sessionTimeoutMs - heartbeatIntervalMs, sessionTimeoutMs / 2);
    if (silentFor >= limit) {
      this.#loseMembership(
        `no successful heartbeat for ${silentFor} ms (session.timeout.ms ${sessionTimeoutMs})`,
      );
    }
  }

  #loseMembership(reason: string): void {
    if (this.#lost) return;
    this.#lost = true;
    this.#log.warn({ reason }, "group membership lost; stopping this member's work");
    this.#handler.onLost(reason);
  }
}

/**
 * The member metadata sent in JoinGroup: a 4-byte rejoin count, then the handler's metadata. Kafka's coordinator
 * answers a follower that rejoins a stable group with unchanged metadata with the current generation, without a
 * rebalance; only the leader's rejoin, or changed metadata, starts one. Counting requested rejoins in the metadata
 * makes every requested rejoin a rebalance, whichever member asks.
 */
function withRejoinCount(count: number, metadata: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + metadata.length);
  new DataView(out.buffer).setUint32(0, count);
  out.set(metadata, 4);
  return out;
}

/** The handler's metadata out of what withRejoinCount built. */
function withoutRejoinCount(bytes: Uint8Array): Uint8Array {
  return bytes.subarray(4);
}
