/**
 * A task's standing warnings: conditions that do not fail the task but that an operator must see (a sink
 * waiting for its topic, a topic whose retention deletes what a backfill writes). Each has a key, so one
 * condition replaces or clears its own sentence. The current list goes to the main thread (a `warnings` task-thread
 * message → the task's status `warnings`); each sentence is logged once when it appears, not on every retry.
 */
import type { Logger } from "../../observability/log.ts";

export class TaskWarnings {
  readonly #byKey = new Map<string, string>();
  readonly #publish: (warnings: string[]) => void;
  readonly #log: Logger;

  constructor(publish: (warnings: string[]) => void, log: Logger) {
    this.#publish = publish;
    this.#log = log;
  }

  /** Raises (or rewords) the warning of `key`; a sentence already shown is neither logged nor sent again. */
  set(key: string, sentence: string): void {
    if (this.#byKey.get(key) === sentence) return;
    this.#byKey.set(key, sentence);
    this.#log.warn({ warning: key }, sentence);
    this.#publish(this.list());
  }

  /** The condition of `key` is over. */
  clear(key: string): void {
    if (!this.#byKey.has(key)) return;
    this.#log.info({ warning: key }, `resolved: ${this.#byKey.get(key)}`);
    this.#byKey.delete(key);
    this.#publish(this.list());
  }

  list(): string[] {
    return [...this.#byKey.values()];
  }
}
