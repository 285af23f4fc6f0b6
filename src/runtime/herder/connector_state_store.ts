/**
 * Keeps what operators change over the REST API across daemon restarts (`config.storage.file.filename`):
 * connectors created, reconfigured, paused, stopped or deleted over REST.
 *
 * The config file stays the source of truth for what it declares: a stored change applies only while the
 * file's entry for that connector is unchanged since the change was made (its hash is kept with it). Editing
 * the file and restarting therefore wins over an older REST change, and REST changes survive restarts when
 * the file is untouched.
 *
 * It also keeps the task count records of exactly-once source connectors (runtime/herder/zombie_fencing.ts), as the
 * config topic does in group mode.
 */
import { dirname } from "node:path";
import { writeFileAtomically } from "../offsets/atomic_file.ts";
import type { RawConfig } from "../../common/props.ts";

/** Connect's task count record: the task count of the latest fenced generation (and, ours, its config's hash). */
export interface TaskCountRecord {
  taskCount: number;
  configHash?: string;
}

/** Where the records are kept: the connector state file (standalone) or the config topic (group mode). */
export interface TaskCountRecords {
  taskCountRecord(connector: string): TaskCountRecord | undefined;
  /** Resolves once durable (group mode: once this member read it back). */
  putTaskCountRecord(connector: string, record: TaskCountRecord): Promise<void>;
}

export type TargetState = "RUNNING" | "PAUSED" | "STOPPED";

export interface StoredConnector {
  config: RawConfig;
  target: TargetState;
  deleted?: boolean;
  /** Hash of the config file's entry when this change was made; absent for connectors created over REST. */
  fileHash?: string;
}

/** Where connector changes made over REST are kept: this file (standalone) or the config topic (group mode). */
export interface ConnectorConfigStore {
  get(name: string): StoredConnector | undefined;
  names(): string[];
  /** Records a change; resolves once durable. */
  put(name: string, entry: StoredConnector): Promise<void>;
  remove(name: string): Promise<void>;
}

interface StateFile {
  format: "tablesync.connectors";
  version: 1;
  connectors: Record<string, StoredConnector>;
  /** Task count records of exactly-once source connectors (absent in files written before them). */
  fencing?: Record<string, TaskCountRecord>;
}

export class ConnectorStateStore implements ConnectorConfigStore, TaskCountRecords {
  #path: string;
  #connectors: Record<string, StoredConnector> = {};
  #fencing: Record<string, TaskCountRecord> = {};
  #writing: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.#path = path;
  }

  async load(): Promise<void> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.#path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return;
      throw new Error(`cannot read connector state file ${this.#path}: ${(e as Error).message}`);
    }
    let doc: StateFile;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new Error(
        `connector state file ${this.#path} is not valid JSON (${
          (e as Error).message
        }); move it away to start from the config file alone`,
      );
    }
    if (doc?.format !== "tablesync.connectors" || doc.version !== 1 || typeof doc.connectors !== "object") {
      throw new Error(
        `connector state file ${this.#path} has an unknown format; move it away to start from the config file alone`,
      );
    }
    this.#connectors = doc.connectors;
    this.#fencing = typeof doc.fencing === "object" && doc.fencing !== null ? doc.fencing : {};
  }

  taskCountRecord(name: string): TaskCountRecord | undefined {
    return this.#fencing[name];
  }

  /** Records the task count of a fenced generation and writes the file (atomically). */
  putTaskCountRecord(name: string, record: TaskCountRecord): Promise<void> {
    this.#fencing[name] = record;
    return this.#save();
  }

  get(name: string): StoredConnector | undefined {
    return this.#connectors[name];
  }

  names(): string[] {
    return Object.keys(this.#connectors);
  }

  /** Records a change and writes the file (atomically); resolves once durable. A failed write is undone. */
  put(name: string, entry: StoredConnector): Promise<void> {
    const before = this.#connectors[name];
    this.#connectors[name] = entry;
    return this.#save().catch((e) => {
      if (this.#connectors[name] === entry) this.#restore(name, before);
      throw e;
    });
  }

  remove(name: string): Promise<void> {
    const before = this.#connectors[name];
    delete this.#connectors[name];
    return this.#save().catch((e) => {
      if (!(name in this.#connectors)) this.#restore(name, before);
      throw e;
    });
  }

  #restore(name: string, entry: StoredConnector | undefined): void {
    if (entry) this.#connectors[name] = entry;
    else delete this.#connectors[name];
  }

  #save(): Promise<void> {
    const doc: StateFile = {
      format: "tablesync.connectors",
      version: 1,
      connectors: this.#connectors,
      ...(Object.keys(this.#fencing).length > 0 ? { fencing: this.#fencing } : {}),
    };
    const bytes = new TextEncoder().encode(JSON.stringify(doc, null, 2) + "\n");
    this.#writing = this.#writing.catch(() => {}).then(async () => {
      await Deno.mkdir(dirname(this.#path), { recursive: true });
      await writeFileAtomically(this.#path, bytes);
    });
    return this.#writing;
  }
}

/** A stable hash of a config map, independent of key order. */
export async function configHash(config: RawConfig): Promise<string> {
  const canonical = JSON.stringify(Object.keys(config).sort().map((k) => [k, config[k]]));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical));
  return [...new Uint8Array(digest)].slice(0, 12).map((b) => b.toString(16).padStart(2, "0")).join("");
}
