/**
 * The herder's connectors as the state store keeps them (runtime/herder/connector_state_store.ts: the local file
 * standalone, the config topic in group mode): which connectors run at start, and the record of each change.
 *
 * At start the config file's connectors are merged with the stored changes. A stored change of a file entry
 * applies only while that entry is unchanged since the change (same hash). Otherwise the file wins: standalone
 * the stale change is dropped; in group mode the file entry seeds the shared config. A stored connector the file
 * no longer declares is dropped with it standalone; one created over REST is kept.
 */
import type { RawConfig } from "../../common/props.ts";
import { configHash, type ConnectorConfigStore, type TargetState } from "./connector_state_store.ts";
import type { ManagedConnector } from "./managed.ts";
import { ConnectRestError } from "./connect_rest_error.ts";

/** A connector to hold at start. */
export interface StartingConnector {
  readonly name: string;
  readonly config: RawConfig;
  readonly target: TargetState;
  /** Hash of the config file's entry, when the connector comes from the file. */
  readonly fileHash?: string;
  /** Group mode: a file entry the shared config does not have yet (or that changed since): write it there. */
  readonly seed: boolean;
}

type Recorded = Pick<ManagedConnector, "name" | "config" | "target" | "fileHash">;

export class StoredConnectors {
  constructor(private readonly store: ConnectorConfigStore, private readonly groupMode: boolean) {}

  /** The connectors to hold at start, in order: the file's, then those only the store has. */
  async atStart(
    fileConnectors: readonly { name: string; config: RawConfig }[],
  ): Promise<StartingConnector[]> {
    const out: StartingConnector[] = [];
    const fileNames = new Set<string>();
    for (const entry of fileConnectors) {
      const fileHash = await configHash(entry.config);
      fileNames.add(entry.name);
      const stored = this.store.get(entry.name);
      if (stored && stored.fileHash === fileHash) {
        if (!stored.deleted) {
          out.push({ name: entry.name, config: stored.config, target: stored.target, fileHash, seed: false });
        }
        continue;
      }
      if (stored && !this.groupMode) await this.store.remove(entry.name);
      out.push({ name: entry.name, config: entry.config, target: "RUNNING", fileHash, seed: this.groupMode });
    }
    for (const name of this.store.names()) {
      const stored = this.store.get(name)!;
      if (fileNames.has(name) || stored.deleted) continue;
      if (stored.fileHash !== undefined && !this.groupMode) continue;
      out.push({
        name,
        config: stored.config,
        target: stored.target,
        fileHash: stored.fileHash,
        seed: false,
      });
    }
    return out;
  }

  /** Records the connector's config and target; resolves once durable, else a 500 saying nothing was changed. */
  async save(m: Recorded): Promise<void> {
    try {
      await this.store.put(m.name, { config: m.config, target: m.target, fileHash: m.fileHash });
    } catch (e) {
      throw new ConnectRestError(
        500,
        `The change to connector ${m.name} could not be stored, so it was not applied: ${
          (e as Error).message
        }`,
      );
    }
  }

  /** Records a deletion: a file entry is kept as deleted (the file still declares it), any other is removed. */
  async forget(m: Recorded): Promise<void> {
    if (m.fileHash) {
      await this.store.put(m.name, {
        config: m.config,
        target: m.target,
        deleted: true,
        fileHash: m.fileHash,
      });
    } else await this.store.remove(m.name);
  }
}
