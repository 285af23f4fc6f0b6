/**
 * KIP-558 active topics, in a task thread: the topics the task produced to (source) or consumed from (sink).
 * Each topic is posted to the main thread once, when first used; after a reset (PUT
 * /connectors/<name>/topics/reset) each is posted again on its next use. The herder keeps the connector's set.
 */
export class ActiveTopics {
  readonly #seen = new Set<string>();

  constructor(private readonly report: (topics: string[]) => void) {}

  /** Records that the task used `topic`; cheap when it is already known. */
  use(topic: string): void {
    if (this.#seen.has(topic)) return;
    this.#seen.add(topic);
    this.report([topic]);
  }

  reset(): void {
    this.#seen.clear();
  }
}
