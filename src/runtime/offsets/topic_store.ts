/**
 * Source offsets in a compacted Kafka topic (worker key `offset.storage.topic`), in Kafka Connect's own format:
 * key `["<connector>",{partition}]`, value the offset map, null value = tombstone (JsonConverter, schemas
 * disabled). A Java Connect cluster can read what we write and the other way round.
 *
 * start() reads the whole topic, every partition up to the end offsets captured at start, and keeps the last
 * write of each key. Keys are matched canonically (offset_key.ts), so one partition may have been written under
 * several spellings; these can sit in different topic partitions (the partitioner hashes key bytes). Within a
 * topic partition the later offset wins; across topic partitions the later record timestamp wins. Our writes
 * reuse the spelling of the latest record of the key (even a tombstone), so they land where the previous write
 * is and compaction keeps only the newest. Records whose key is not a `[string, object]` list or whose value is not a JSON object are
 * ignored with a warning, as Connect ignores them.
 *
 * Writes are coalesced like the file store's: set() updates memory and marks the key pending; the background
 * write (or flush()) appends the latest value of each pending key and resolves on the broker's ack.
 */
import { logger } from "../../observability/log.ts";
import { CoalescingFlusher } from "./coalescing_flusher.ts";
import {
  canonicalOffsetKey,
  parseOffsetKey,
  serializeOffsetKey,
  serializeOffsetValue,
} from "./offset_key.ts";
import type { OffsetLog, OffsetLogRecord, OffsetLogWrite } from "./offset_log.ts";
import { OffsetTable } from "./offset_table.ts";
import type { OffsetStore, OffsetUpdate } from "./types.ts";
import type { SourceOffset, SourcePartition } from "../../connect/record.ts";
import type { SourceOffsetEntry } from "../../connect/task_api.ts";
import { validateUpdate } from "./validation.ts";
import { isPlainObject } from "../../common/plain_object.ts";

/** Default delay between a set() and the background write covering it (same reasoning as the file store's). */
const DEFAULT_TOPIC_FLUSH_DELAY_MS = 1000;

/** Ignored records are each logged up to this count, then summarised, so a foreign topic cannot flood the log. */
const MAX_IGNORED_WARNINGS = 10;

export interface TopicOffsetStoreOptions {
  /** The offsets topic (see kafka_offset_log.ts for the Kafka implementation). */
  readonly log: OffsetLog;
  /** Delay between a set() and the background write covering it. Default DEFAULT_TOPIC_FLUSH_DELAY_MS. */
  readonly flushDelayMs?: number;
}

interface PendingWrite {
  readonly key: string;
  readonly offset: SourceOffset | null;
}

/** The winning record of one canonical key while the topic is read. */
interface LatestRecord {
  readonly record: OffsetLogRecord;
  readonly connector: string;
  readonly partition: SourcePartition;
  readonly key: string;
  readonly offset: SourceOffset | null;
}

export class TopicOffsetStore implements OffsetStore {
  readonly #log: OffsetLog;
  readonly #table = new OffsetTable();
  /** Canonical key → the latest change not yet appended. */
  #pending = new Map<string, PendingWrite>();
  /**
   * Canonical key → the key text its latest record used, kept after tombstones too, so that every write of a
   * partition, including a delete and a later re-set, goes to the same topic partition.
   */
  readonly #keyTexts = new Map<string, string>();
  readonly #flusher: CoalescingFlusher;
  readonly #logger;
  #state: "new" | "started" | "closed" = "new";

  constructor(options: TopicOffsetStoreOptions) {
    this.#log = options.log;
    this.#logger = logger("offsets", { store: "topic", topic: options.log.topic });
    this.#flusher = new CoalescingFlusher({
      delayMs: options.flushDelayMs ?? DEFAULT_TOPIC_FLUSH_DELAY_MS,
      write: () => this.#appendPending(),
      onBackgroundError: (error) =>
        this.#logger.error({ err: error }, "writing offsets to the offsets topic failed; will retry"),
    });
  }

  async start(): Promise<void> {
    if (this.#state !== "new") throw new Error("The topic offset store was already started");
    await this.#log.start();
    try {
      const records = await this.#log.readToEnd();
      this.#load(records);
      this.#logger.info({ records: records.length, offsets: this.#table.size }, "loaded source offsets");
    } catch (error) {
      await this.#log.close().catch(() => {});
      throw new Error(`Cannot read the offsets topic "${this.#log.topic}": ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.#state = "started";
  }

  /**
   * Reads the topic to its end again and takes what other writers (other members of a worker group) wrote
   * since: the latest record of every key replaces the one in memory, except for keys with a local change not
   * written yet. Call it before starting a task that ran elsewhere, so it resumes where its predecessor stopped.
   */
  async refresh(): Promise<void> {
    this.#assertStarted();
    const records = await this.#log.readToEnd();
    this.#load(records, (canonical) => !this.#pending.has(canonical));
  }

  get(connector: string, partition: SourcePartition): SourceOffset | undefined {
    this.#assertStarted();
    return this.#table.get(connector, partition);
  }

  getAll(connector: string): SourceOffsetEntry[] {
    this.#assertStarted();
    return this.#table.getAll(connector);
  }

  set(connector: string, entries: readonly OffsetUpdate[]): void {
    this.#apply(connector, entries, true);
    if (entries.length > 0) this.#flusher.changed();
  }

  applyCommitted(connector: string, entries: readonly OffsetUpdate[]): void {
    this.#apply(connector, entries, false);
  }

  /** Validates all, then applies all to memory; `write`: also marks them pending for the next append. */
  #apply(connector: string, entries: readonly OffsetUpdate[], write: boolean): void {
    this.#assertStarted();
    for (const { partition, offset } of entries) validateUpdate(connector, partition, offset);
    for (const { partition, offset } of entries) {
      const canonical = canonicalOffsetKey(connector, partition);
      let key = this.#keyTexts.get(canonical);
      if (key === undefined) this.#keyTexts.set(canonical, key = serializeOffsetKey(connector, partition));
      this.#table.apply(connector, partition, offset, key);
      if (write) this.#pending.set(canonical, { key, offset });
    }
  }

  flush(): Promise<void> {
    this.#assertStarted();
    return this.#flusher.flush();
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    const wasStarted = this.#state === "started";
    this.#state = "closed";
    if (!wasStarted) return;
    try {
      await this.#flusher.stop();
    } finally {
      await this.#log.close();
    }
  }

  async #appendPending(): Promise<void> {
    // Taken synchronously, so the write covers exactly the changes counted when it started.
    const batch = this.#pending;
    this.#pending = new Map();
    const encoder = new TextEncoder();
    const writes: OffsetLogWrite[] = [...batch.values()].map(({ key, offset }) => ({
      key: encoder.encode(key),
      value: offset === null ? null : encoder.encode(serializeOffsetValue(offset)),
    }));
    try {
      await this.#log.append(writes);
    } catch (error) {
      // Put back what no newer set() replaced meanwhile; the next write retries it.
      for (const [canonical, write] of batch) {
        if (!this.#pending.has(canonical)) this.#pending.set(canonical, write);
      }
      throw error;
    }
  }

  /** Applies the latest record of each key; `replaces` says whether an existing row may be overwritten. */
  #load(records: readonly OffsetLogRecord[], replaces?: (canonical: string) => boolean): void {
    const latest = new Map<string, LatestRecord>();
    let ignored = 0;
    const ignore = (record: OffsetLogRecord, problem: string) => {
      ignored++;
      if (ignored <= MAX_IGNORED_WARNINGS) {
        this.#logger.warn(
          { partition: record.partition, offset: record.offset },
          `ignoring a record of the offsets topic: ${problem}`,
        );
      }
    };
    const decoder = new TextDecoder("utf-8", { fatal: true });
    const ordered = [...records].sort((a, b) => a.partition - b.partition || a.offset - b.offset);
    for (const record of ordered) {
      if (record.key === null) {
        ignore(record, "its key is null");
        continue;
      }
      let key: string;
      let parsedKey: unknown;
      try {
        key = decoder.decode(record.key);
        parsedKey = JSON.parse(key);
      } catch {
        ignore(record, "its key is not JSON");
        continue;
      }
      const parts = parseOffsetKey(parsedKey);
      if (!parts.ok) {
        ignore(record, `its key is not a Connect offset key (${parts.problem})`);
        continue;
      }
      let offset: SourceOffset | null = null;
      if (record.value !== null) {
        let value: unknown;
        try {
          value = JSON.parse(decoder.decode(record.value));
        } catch {
          ignore(record, "its value is not JSON");
          continue;
        }
        if (!isPlainObject(value)) {
          ignore(record, "its value is not a JSON object");
          continue;
        }
        offset = value as SourceOffset;
      }
      const partition = parts.partition as SourcePartition;
      const canonical = canonicalOffsetKey(parts.connector, partition);
      const current = latest.get(canonical);
      if (!current || isLaterWrite(record, current.record)) {
        latest.set(canonical, { record, connector: parts.connector, partition, key, offset });
      }
    }
    if (ignored > MAX_IGNORED_WARNINGS) {
      this.#logger.warn(
        { ignored },
        "ignored records of the offsets topic (only the first ones were logged)",
      );
    }
    for (const [canonical, { connector, partition, key, offset }] of latest) {
      if (replaces) {
        if (!replaces(canonical)) continue;
        this.#table.apply(connector, partition, offset, key);
      } else if (offset !== null) this.#table.apply(connector, partition, offset, key);
      this.#keyTexts.set(canonical, key);
    }
  }

  #assertStarted(): void {
    if (this.#state === "new") throw new Error("The topic offset store is not started");
    if (this.#state === "closed") throw new Error("The topic offset store is closed");
  }
}

/** Whether `candidate` replaces `current` for the same canonical key (see the module comment). */
function isLaterWrite(candidate: OffsetLogRecord, current: OffsetLogRecord): boolean {
  if (candidate.partition === current.partition) return candidate.offset > current.offset;
  return candidate.timestamp > current.timestamp;
}
