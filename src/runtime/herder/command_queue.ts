/**
 * Commands on one connector run one at a time (a per-connector queue): a restart racing a delete or a config
 * change must not leave orphan task threads or start tasks for a connector that is gone. Once closing begins,
 * commands are refused.
 */
import { ConnectRestError } from "./connect_rest_error.ts";

export class CommandQueue {
  readonly #queues = new Map<string, Promise<unknown>>();
  #closing = false;

  /** Runs `command` after the connector's earlier commands; refused with 503 once closing. */
  run<T>(name: string, command: () => Promise<T>): Promise<T> {
    if (this.#closing) return Promise.reject(new ConnectRestError(503, "The worker is shutting down"));
    const previous = this.#queues.get(name) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(command);
    this.#queues.set(name, next);
    next.finally(() => {
      if (this.#queues.get(name) === next) this.#queues.delete(name);
    }).catch(() => {});
    return next;
  }

  /** Refuses new commands and resolves once the queued ones have finished. */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.allSettled([...this.#queues.values()]);
  }
}
