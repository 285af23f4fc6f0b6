/**
 * Awaitable rebalance callbacks for kafkajs consumers.
 *
 * kafkajs only emits fire-and-forget events around a rebalance, so a sink could not flush and commit before its
 * partitions move. This patches `ConsumerGroup.prototype.joinAndSync` (the one method every join goes through:
 * first start, rebalance, unknown-member recovery) to await two hooks around the original:
 *  - before: the partitions the member holds now (eager protocol: all of them are revoked by a rejoin). By then
 *    kafkajs has stopped its fetchers, so no batch is in flight.
 *  - after: the new assignment, before fetching resumes.
 * The hooks are found through the member's partition assigner, which our consumer tags (see `hookedAssigner`),
 * because the ConsumerGroup instance is private to kafkajs. The hooks also receive that instance, which lets the
 * consumer commit through it directly.
 */
import ConsumerGroupModule from "kafkajs/src/consumer/consumerGroup.js";
import { PartitionAssigners } from "kafkajs";
import type { TopicPartition } from "./types.ts";

// deno-lint-ignore no-explicit-any
export type KafkajsConsumerGroup = any;

export interface GroupHooks {
  beforeJoin(group: KafkajsConsumerGroup, held: TopicPartition[]): Promise<void>;
  afterJoin(group: KafkajsConsumerGroup, assigned: TopicPartition[]): Promise<void>;
}

const HOOKS = Symbol.for("tablesync.kafkajs.groupHooks");
const PATCHED = Symbol.for("tablesync.kafkajs.joinAndSyncPatched");
// deno-lint-ignore no-explicit-any
const ConsumerGroup = ConsumerGroupModule as any;

if (!ConsumerGroup.prototype[PATCHED]) {
  ConsumerGroup.prototype[PATCHED] = true;
  const original = ConsumerGroup.prototype.joinAndSync as (this: KafkajsConsumerGroup) => Promise<void>;
  ConsumerGroup.prototype.joinAndSync = async function (this: KafkajsConsumerGroup): Promise<void> {
    // deno-lint-ignore no-explicit-any
    const hooks: GroupHooks | undefined = this.assigners.find((a: any) => a[HOOKS])?.[HOOKS];
    if (hooks) await hooks.beforeJoin(this, flatten(this.assigned()));
    await original.call(this);
    if (hooks) await hooks.afterJoin(this, flatten(this.assigned()));
  };
}

/** A round-robin assigner (kafkajs's only built-in) carrying `hooks` for the patched joinAndSync. */
// deno-lint-ignore no-explicit-any
export function hookedAssigner(hooks: GroupHooks): any {
  return hookedAssignerWith(hooks, PartitionAssigners.roundRobin);
}

/** Any kafkajs assigner factory, its assigners carrying `hooks` for the patched joinAndSync. */
// deno-lint-ignore no-explicit-any
export function hookedAssignerWith(hooks: GroupHooks, assigner: (context: any) => object): any {
  // deno-lint-ignore no-explicit-any
  return (context: any) => Object.assign(assigner(context), { [HOOKS]: hooks });
}

function flatten(assigned: Array<{ topic: string; partitions: number[] }>): TopicPartition[] {
  return assigned.flatMap(({ topic, partitions }) => partitions.map((partition) => ({ topic, partition })));
}
