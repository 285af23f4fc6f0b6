/**
 * A sink task's consumer lag per partition (`tablesync_sink_consumer_lag_records`): the log end offset as of a
 * batch's fetch minus the next offset to hand to the task. A partition's gauge goes when the partition is
 * revoked, and every gauge goes when the task fails: it consumes nothing more, so a last value would read as
 * current while the real lag grows.
 */
import type { MetricsRegistry } from "../../observability/metrics.ts";

const CONSUMER_LAG = "tablesync_sink_consumer_lag_records";

export class ConsumerLagGauges {
  readonly #metrics: Pick<MetricsRegistry, "set" | "unset">;
  /** `topic\0partition` → the labels of its gauge. */
  readonly #partitions = new Map<string, { topic: string; partition: string }>();

  constructor(metrics: Pick<MetricsRegistry, "set" | "unset">) {
    this.#metrics = metrics;
  }

  set(topic: string, partition: number, highWatermark: number, position: number): void {
    const labels = { topic, partition: String(partition) };
    this.#partitions.set(`${topic}\u0000${partition}`, labels);
    this.#metrics.set(CONSUMER_LAG, labels, Math.max(0, highWatermark - position));
  }

  unset(topic: string, partition: number): void {
    const key = `${topic}\u0000${partition}`;
    const labels = this.#partitions.get(key);
    if (!labels) return;
    this.#partitions.delete(key);
    this.#metrics.unset(CONSUMER_LAG, labels);
  }

  clear(): void {
    for (const labels of this.#partitions.values()) this.#metrics.unset(CONSUMER_LAG, labels);
    this.#partitions.clear();
  }
}
