/**
 * What a source topic holds, read back with kcat: how often each row version (sys_id, sys_updated_on and
 * sys_mod_count of a schemaless value) and each tombstone (by key) is on it. sys_mod_count belongs to the version:
 * a row changed twice within one second has two versions under one sys_updated_on, and the source sends both
 * (the tail after a busy sweep follows a hot row at each version it reads). The handover and placement tests assert that nothing
 * already sent comes twice, and that the simulator's current rows and deletions all arrived.
 */
import type { Simulator } from "../../src/sim/mod.ts";
import { readTopicWithKcat } from "./kafka_helpers.ts";

export interface TopicVersions {
  /** `sys_id|sys_updated_on|sys_mod_count` → times on the topic. */
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
    const version = `${row.sys_id}|${row.sys_updated_on}|${row.sys_mod_count}`;
    versions.set(version, (versions.get(version) ?? 0) + 1);
  }
  return { versions, tombstones };
}

/** The current version of every row of `table`, named as `topicVersions` names them. */
export function currentVersions(sim: Simulator, table: string): string[] {
  const t = sim.table(table);
  return t.sysIds().map((id) => {
    const row = t.get(id)!;
    return `${id}|${row.sys_updated_on}|${row.sys_mod_count}`;
  });
}

/** What appears more than once: versions and tombstones, each with its count. */
export function repeated(seen: TopicVersions): string[] {
  return [
    ...[...seen.versions].filter(([, n]) => n > 1).map(([v, n]) => `version ${v} ×${n}`),
    ...[...seen.tombstones].filter(([, n]) => n > 1).map(([k, n]) => `tombstone ${k} ×${n}`),
  ];
}
