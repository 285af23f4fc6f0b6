/**
 * What a source topic holds, read back with kcat: how often each row version (sys_id and sys_updated_on of a
 * schemaless value) and each tombstone (by key) is on it. The handover and placement tests assert that nothing
 * already sent comes twice, and that the simulator's current rows and deletions all arrived.
 */
import type { Simulator } from "../../src/sim/mod.ts";
import { readTopicWithKcat } from "./kafka_helpers.ts";

export interface TopicVersions {
  /** `sys_id|sys_updated_on` → times on the topic. */
  readonly versions: Map<string, number>;
  /** sys_id → tombstones on the topic. */
  readonly tombstones: Map<string, number>;
}

export async function topicVersions(bootstrapServers: string, topic: string): Promise<TopicVersions> {
  const versions = new Map<string, number>();
  const tombstones = new Map<string, number>();
  for (const r of await readTopicWithKcat(bootstrapServers, topic)) {
    if (r.value === null) {
      tombstones.set(r.key!, (tombstones.get(r.key!) ?? 0) + 1);
      continue;
    }
    const row = JSON.parse(r.value) as Record<string, string>;
    const version = `${row.sys_id}|${row.sys_updated_on}`;
    versions.set(version, (versions.get(version) ?? 0) + 1);
  }
  return { versions, tombstones };
}

/** The current version of every row of `table`, named as `topicVersions` names them. */
export function currentVersions(sim: Simulator, table: string): string[] {
  const t = sim.table(table);
  return t.sysIds().map((id) => `${id}|${t.get(id)!.sys_updated_on}`);
}

/** What appears more than once: versions and tombstones, each with its count. */
export function repeated(seen: TopicVersions): string[] {
  return [
    ...[...seen.versions].filter(([, n]) => n > 1).map(([v, n]) => `version ${v} ×${n}`),
    ...[...seen.tombstones].filter(([, n]) => n > 1).map(([k, n]) => `tombstone ${k} ×${n}`),
  ];
}
