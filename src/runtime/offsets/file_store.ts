/**
 * Source offsets in a local file (worker key `offset.storage.file.filename`), the default backend.
 *
 * The whole table lives in memory; each write replaces the file atomically and durably with a snapshot
 * (atomic_file.ts), in the format of file_format.ts. A missing file means no offsets yet; a file that cannot
 * be read or parsed stops start() with CorruptOffsetsError instead of silently starting over, because starting
 * over re-reads every table from its initial position. Writes are coalesced (CoalescingFlusher): a background
 * write follows a set() after `flushDelayMs`, and flush() writes at once.
 */
import { dirname } from "node:path";
import { logger } from "../../observability/log.ts";
import { removeLeftoverTempFiles, writeFileAtomically } from "./atomic_file.ts";
import { CoalescingFlusher } from "./coalescing_flusher.ts";
import { decodeOffsetsFile, encodeOffsetsFile } from "./file_format.ts";
import { OffsetTable } from "./offset_table.ts";
import type { OffsetStore, OffsetUpdate } from "./types.ts";
import type { SourceOffset, SourcePartition } from "../../connect/record.ts";
import type { SourceOffsetEntry } from "../../connect/task_api.ts";
import { validateUpdate } from "./validation.ts";

/**
 * Default delay between a set() and the background write covering it. Kafka Connect flushes every
 * `offset.flush.interval.ms` (60 s); we write soon after acks so a crash re-sends little, while one fsync'd
 * write per second stays cheap however many acks arrive.
 */
export const DEFAULT_FILE_FLUSH_DELAY_MS = 1000;

export interface FileOffsetStoreOptions {
  /** The offsets file (`offset.storage.file.filename`). A missing directory is created. */
  readonly path: string;
  /** Delay between a set() and the background write covering it. Default DEFAULT_FILE_FLUSH_DELAY_MS. */
  readonly flushDelayMs?: number;
}

export class FileOffsetStore implements OffsetStore {
  readonly path: string;
  readonly #table = new OffsetTable();
  readonly #flusher: CoalescingFlusher;
  readonly #log = logger("offsets", { store: "file" });
  #state: "new" | "started" | "closed" = "new";
  /** Background writes failed in a row (a full or read-only file system): one line per spell, not per retry. */
  #failedWrites = 0;

  constructor(options: FileOffsetStoreOptions) {
    this.path = options.path;
    this.#flusher = new CoalescingFlusher({
      delayMs: options.flushDelayMs ?? DEFAULT_FILE_FLUSH_DELAY_MS,
      write: () => this.#writeSnapshot(),
      onBackgroundError: (error) => this.#writeFailed(error as Error),
    });
  }

  async start(): Promise<void> {
    if (this.#state !== "new") throw new Error("The file offset store was already started");
    await this.#prepareDirectory();
    const leftovers = await removeLeftoverTempFiles(this.path);
    if (leftovers.length > 0) {
      this.#log.warn(
        { path: this.path, leftovers },
        "removed temp files left by an interrupted offsets write",
      );
    }
    const bytes = await this.#readExisting();
    if (bytes === null) {
      this.#log.info({ path: this.path }, "no offsets file yet: starting with no stored offsets");
      // Writing the empty file now proves the directory is writable before any connector starts.
      await writeFileAtomically(this.path, new TextEncoder().encode(encodeOffsetsFile([])));
    } else {
      const { rows, duplicates } = decodeOffsetsFile(bytes, this.path);
      for (const row of rows) this.#table.apply(row.connector, row.partition, row.offset);
      if (duplicates > 0) {
        this.#log.warn(
          { path: this.path, duplicates },
          "offsets file repeats some keys; the last row of each wins",
        );
      }
      this.#log.info({ path: this.path, offsets: this.#table.size }, "loaded source offsets");
    }
    this.#state = "started";
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
    this.#assertStarted();
    for (const { partition, offset } of entries) validateUpdate(connector, partition, offset);
    for (const { partition, offset } of entries) this.#table.apply(connector, partition, offset);
    if (entries.length > 0) this.#flusher.changed();
  }

  flush(): Promise<void> {
    this.#assertStarted();
    return this.#flusher.flush();
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    const wasStarted = this.#state === "started";
    this.#state = "closed";
    if (wasStarted) await this.#flusher.stop();
  }

  #writeSnapshot(): Promise<void> {
    // Encoded synchronously, so the write covers exactly the changes counted when it started.
    const snapshot = new TextEncoder().encode(encodeOffsetsFile(this.#table.rows()));
    return writeFileAtomically(this.path, snapshot).then(() => {
      if (this.#failedWrites === 0) return;
      this.#log.info(
        { path: this.path, failedWrites: this.#failedWrites },
        "the offsets file is written again; offsets committed",
      );
      this.#failedWrites = 0;
    });
  }

  /**
   * A background write failed: the file keeps its last content (writes are atomic), the offsets stay in memory
   * and the write is retried with backoff. Logged once when the spell starts (the cause, no trace), each retry
   * only at debug.
   */
  #writeFailed(error: Error): void {
    const fields = { path: this.path, failedWrites: ++this.#failedWrites };
    if (this.#failedWrites > 1) {
      this.#log.debug(fields, `writing the offsets file failed again: ${error.message}`);
      return;
    }
    this.#log.error(
      fields,
      `writing the offsets file failed: ${error.message}; it keeps its last offsets, the new ones stay in ` +
        `memory and the write is retried (at least every 30 s) until it succeeds`,
    );
  }

  /** Creates the file's directory when missing (the default path is relative: `data/offsets.json`). */
  async #prepareDirectory(): Promise<void> {
    const dir = dirname(this.path);
    try {
      const info = await Deno.stat(dir);
      if (!info.isDirectory) throw new Error(`${dir} is not a directory`);
      return;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        throw new Error(
          `Offsets file ${this.path}: cannot use directory ${dir}: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
    }
    try {
      await Deno.mkdir(dir, { recursive: true });
    } catch (error) {
      throw new Error(
        `Offsets file ${this.path}: cannot create directory ${dir}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    this.#log.warn({ path: this.path, dir }, "created the missing directory of the offsets file");
  }

  async #readExisting(): Promise<Uint8Array | null> {
    try {
      return await Deno.readFile(this.path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw new Error(`Cannot read offsets file ${this.path}: ${(error as Error).message}`, { cause: error });
    }
  }

  #assertStarted(): void {
    if (this.#state === "new") throw new Error("The file offset store is not started");
    if (this.#state === "closed") throw new Error("The file offset store is closed");
  }
}
