/**
 * Retention traps. Source records carry their rows' timestamps (sys_updated_on), and a topic whose cleanup
 * policy includes `delete` removes records older than now − `retention.ms` by those timestamps: a backfill of
 * old rows is deleted minutes after it is written. Each topic's configs are read (DescribeConfigs) before its
 * first record of the task's run; a record older than the topic keeps raises a task warning (status and log)
 * that names the fix. While warned, the configs are read again every RECHECK_MS, so a fixed topic clears it.
 */
import type { Logger } from "../../observability/log.ts";
import type { TaskWarnings } from "../task/task_warnings.ts";

const RECHECK_MS = 60_000;

/** The age beyond which the topic deletes records by their timestamp, in ms; null when it never does. */
export function timeRetentionOf(configs: Record<string, string>): number | null {
  const policies = (configs["cleanup.policy"] ?? "delete").split(",").map((p) => p.trim());
  if (!policies.includes("delete")) return null;
  // The broker stamps records on append: their age starts when they are written.
  if (configs["message.timestamp.type"] === "LogAppendTime") return null;
  const ms = Number(configs["retention.ms"] ?? "-1");
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

export interface TopicRetentionOptions {
  /** The topic's configs (DescribeConfigs). */
  describe: (topic: string) => Promise<Record<string, string>>;
  warnings: Pick<TaskWarnings, "set" | "clear">;
  log: Logger;
  /** How often a warned topic's configs are read again (default RECHECK_MS). */
  recheckMs?: number;
}

interface Watched {
  retentionMs: number | null;
  policy: string;
  warned: boolean;
  rereading: boolean;
}

export class TopicRetention {
  readonly #o: TopicRetentionOptions;
  readonly #topics = new Map<string, Watched>();
  #rechecks: ReturnType<typeof setInterval> | undefined;

  constructor(options: TopicRetentionOptions) {
    this.#o = options;
  }

  /** Reads the topic's retention (before its first record). A cluster that cannot describe it is not checked. */
  async watch(topic: string): Promise<void> {
    const watched: Watched = {
      retentionMs: null,
      policy: "",
      warned: false,
      rereading: false,
    };
    this.#topics.set(topic, watched);
    const failure = await this.#read(topic, watched);
    // Said once, where operators look: without Describe access on the topic the check is off.
    if (failure) {
      this.#o.log.info(
        { topic, err: failure },
        `cannot read topic ${topic}'s configs: its retention is not checked`,
      );
    }
  }

  /** A record about to be written to `topic` with `timestamp` (ms). Cheap: called for every record. */
  check(topic: string, timestamp: number | undefined): void {
    const watched = this.#topics.get(topic);
    if (!watched || watched.retentionMs === null || timestamp === undefined) return;
    if (watched.warned || timestamp >= Date.now() - watched.retentionMs) return;
    watched.warned = true;
    // Read again on a timer, not on records: a table whose backfill ended writes none, yet a fix must show.
    this.#rechecks ??= setInterval(() => this.#recheck(), this.#o.recheckMs ?? RECHECK_MS);
    this.#o.warnings.set(
      `retention:${topic}`,
      `topic ${topic} deletes records older than ${
        age(watched.retentionMs)
      } (cleanup.policy=${watched.policy}, ` +
        `retention.ms=${watched.retentionMs}) and records carry their rows' timestamps: rows last updated ` +
        `${new Date(timestamp).toISOString()} are written to it and deleted soon after; set ` +
        `retention.ms=-1 or cleanup.policy=compact, or message.timestamp.type=LogAppendTime, on the topic, then ` +
        `reset the connector's offsets (stopped: DELETE /connectors/<name>/offsets) to write the deleted rows again`,
    );
  }

  /** Reads the topic's configs; the error when they cannot be read (what was read before stays). */
  async #read(topic: string, watched: Watched): Promise<Error | null> {
    try {
      const configs = await this.#o.describe(topic);
      watched.retentionMs = timeRetentionOf(configs);
      watched.policy = configs["cleanup.policy"] ?? "delete";
      return null;
    } catch (e) {
      return e as Error;
    }
  }

  /** Warned topics read again: a fix (retention, policy or timestamp type) clears the warning. */
  async #recheck(): Promise<void> {
    for (const [topic, watched] of this.#topics) {
      if (!watched.warned || watched.rereading) continue;
      watched.rereading = true;
      const before = watched.retentionMs;
      await this.#read(topic, watched);
      watched.rereading = false;
      if (watched.retentionMs === before) continue;
      watched.warned = false;
      this.#o.warnings.clear(`retention:${topic}`);
    }
    if (![...this.#topics.values()].some((w) => w.warned)) this.close();
  }

  /** Stops reading warned topics again (the task stops). */
  close(): void {
    clearInterval(this.#rechecks);
    this.#rechecks = undefined;
  }
}

/** A retention as people say it: "1 min", "7 d". */
function age(ms: number): string {
  const units: [number, string][] = [[86_400_000, "d"], [3_600_000, "h"], [60_000, "min"], [1000, "s"]];
  for (const [size, unit] of units) if (ms >= size) return `${Math.round(ms / size * 10) / 10} ${unit}`;
  return `${ms} ms`;
}
