/**
 * The zombie-fencing round of exactly-once source connectors (KIP-618, Connect's DistributedHerder
 * `fenceZombieSourceTasks`), run in the main thread before the tasks of a new config start.
 *
 * A task fences its own transactional id `<group.id>-<connector>-<task>` when it starts (exactly_once_task.ts),
 * which covers a task that moved or restarted. It does not cover a new config: when `tasks.max` shrinks, no task
 * initialises the ids that disappeared, and when tables move between tasks, a new task may start on a table
 * before the task that now has its old owner's id fenced that owner. So, as Connect does, before any task of a new
 * config (a generation) starts, every transactional id of the previous generation is fenced, and the round is
 * recorded with the new task count (Connect's task count record, `tasks-fencing-<connector>`), which the next
 * round reads to know which ids to fence. Tasks of a generation wait until its round is recorded.
 *
 * A generation is the connector's config (its hash rides along in the record): tablesync derives task configs
 * from it, where Connect writes them to the config topic. Exactly one process runs a connector's rounds: the
 * daemon standalone, the member the group assigned the connector to in group mode; the others wait for the record
 * in the config topic. As in Connect, a round is skipped (only recorded) when no record exists (no task ever ran
 * transactionally under it) or when both generations have one task (the new task 0 fences the old one itself).
 */
import type { RawConfig } from "../../common/props.ts";
import type { KafkaClient } from "../../kafka/mod.ts";
import { logger } from "../../observability/log.ts";
import { configHash, type TaskCountRecord, type TaskCountRecords } from "./connector_state_store.ts";
import { transactionalIdOf } from "../../config/exactly_once_rules.ts";

const log = logger("herder");

/** The config a round was awaited for is no longer the connector's (changed or deleted meanwhile). */
export class SupersededRound extends Error {}

export interface ZombieFencingOptions {
  kafka: () => Promise<KafkaClient>;
  records: TaskCountRecords;
  /** The worker's group.id (the transactional ids' prefix). */
  groupId: string | undefined;
  /** Whether this process runs the connector's rounds: always standalone; the connector's member in a group. */
  runsRounds: (connector: string) => boolean;
  /** How often a member waiting for another member's round reads the record again. Default 200 ms. */
  recheckMs?: number;
}

export class ZombieFencing {
  readonly #o: ZombieFencingOptions;
  /** The round of each generation (keyed by its config object), shared by the tasks that wait for it. */
  readonly #rounds = new WeakMap<RawConfig, Promise<void>>();

  constructor(options: ZombieFencingOptions) {
    this.#o = options;
  }

  /**
   * Resolves once the round of the generation `config` (with `taskCount` tasks) is recorded, running it here
   * when this process runs the connector's rounds. `current` tells whether the generation is still the
   * connector's: a superseded one rejects (its tasks are stopped anyway).
   */
  ready(connector: string, config: RawConfig, taskCount: number, current: () => boolean): Promise<void> {
    let round = this.#rounds.get(config);
    if (!round) {
      round = this.#awaitRound(connector, config, taskCount, current);
      this.#rounds.set(config, round);
      // A failed round is tried again by the next task start (a restart), not remembered.
      round.catch(() => this.#rounds.delete(config));
    }
    return round;
  }

  async #awaitRound(connector: string, config: RawConfig, taskCount: number, current: () => boolean) {
    const hash = await configHash(config);
    while (current()) {
      const record = this.#o.records.taskCountRecord(connector);
      if (record?.configHash === hash) return;
      if (this.#o.runsRounds(connector)) await this.#fence(connector, hash, taskCount, record);
      else await new Promise((r) => setTimeout(r, this.#o.recheckMs ?? 200));
    }
    throw new SupersededRound(
      `the config of connector ${connector} changed before its zombie-fencing round was recorded`,
    );
  }

  async #fence(connector: string, hash: string, taskCount: number, previous: TaskCountRecord | undefined) {
    const fenced = previous?.taskCount ?? 0;
    if (previous && (fenced !== 1 || taskCount !== 1)) {
      const ids = Array.from(
        { length: fenced },
        (_, task) => transactionalIdOf(this.#o.groupId, connector, task),
      );
      await (await this.#o.kafka()).fenceProducers(ids);
      log.info(
        { connector, fenced: ids, taskCount },
        `zombie-fencing round: fenced the ${fenced} transactional id(s) of connector ${connector}'s previous tasks`,
      );
    } else {
      log.info(
        { connector, previousTaskCount: previous?.taskCount ?? null, taskCount },
        `zombie-fencing round skipped for connector ${connector} (${
          previous
            ? "one task before and after: it fences its predecessor itself"
            : "no task count record yet"
        }); recording the task count`,
      );
    }
    await this.#o.records.putTaskCountRecord(connector, { taskCount, configHash: hash });
  }
}
