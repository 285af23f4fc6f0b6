/**
 * The exactly-once verdict on a source topic, read with isolation.level=read_committed by kcat (librdkafka, not
 * the daemon's kafkajs): every row version at most once, every live row's final version present, every deleted
 * row that has records ending with its tombstone, and each key's records in version order (tombstone last).
 */
import { readTopicWithKcat } from "./kafka_helpers.ts";
import type { SimTable } from "../../src/sim/mod.ts";

export interface ExactlyOnceVerdict {
  readonly records: number;
  /** `key/sys_mod_count` (or `key/tombstone`) read more than once, with their counts. */
  readonly duplicates: string[];
  /** Where the copies of each duplicated version are (`partition/offset`, in read order), for failure messages. */
  readonly duplicateCopies: string[];
  /** Final versions of live rows, and tombstones of deleted rows that have records, not read. */
  readonly missing: string[];
  /** Keys whose records are not in ascending version order (a tombstone not last). */
  readonly disordered: string[];
}

/** Reads `topic` committed-only and compares it with the table's rows and the rows deleted from it. */
export async function exactlyOnceVerdict(
  bootstrapServers: string,
  topic: string,
  table: SimTable,
  deleted: ReadonlySet<string>,
): Promise<ExactlyOnceVerdict> {
  const records = await readTopicWithKcat(bootstrapServers, topic, { readCommitted: true });
  const versions = new Map<string, number>();
  const positions = new Map<string, string[]>();
  const byKey = new Map<string, number[]>();
  for (const r of records) {
    if (r.key === null) continue;
    // A tombstone sorts after every version of its key.
    const mod = r.value === null ? Infinity : Number(JSON.parse(r.value).sys_mod_count);
    const version = `${r.key}/${r.value === null ? "tombstone" : mod}`;
    versions.set(version, (versions.get(version) ?? 0) + 1);
    const at = positions.get(version);
    if (at) at.push(`${r.partition}/${r.offset}`);
    else positions.set(version, [`${r.partition}/${r.offset}`]);
    const list = byKey.get(r.key);
    if (list) list.push(mod);
    else byKey.set(r.key, [mod]);
  }
  const duplicates = [...versions].filter(([, n]) => n > 1).map(([v, n]) => `${v} ×${n}`);
  const duplicateCopies = [...positions].filter(([, at]) => at.length > 1).map(([v, at]) =>
    `${v} at ${at.join(", ")}`
  );
  // A row deleted before the source read it has no records at all, which is right; one that has records must
  // end with its tombstone.
  const expected = [
    ...table.sysIds().map((id) => `${id}/${table.get(id)!.sys_mod_count}`),
    ...[...deleted].filter((id) => byKey.has(id)).map((id) => `${id}/tombstone`),
  ];
  const missing = expected.filter((v) => !versions.has(v));
  const disordered = [...byKey].filter(([, mods]) => mods.some((m, i) => i > 0 && m <= mods[i - 1]))
    .map(([key, mods]) => `${key}: ${mods.join(",")}`);
  return { records: records.length, duplicates, duplicateCopies, missing, disordered };
}

/** A one-line summary for logs and failure messages. */
export function describeVerdict(v: ExactlyOnceVerdict): string {
  return `${v.records} records, ${v.duplicates.length} duplicated versions, ${v.missing.length} missing, ` +
    `${v.disordered.length} keys out of order` +
    (v.duplicates.length ? `; e.g. duplicate ${v.duplicateCopies.slice(0, 3).join("; ")}` : "") +
    (v.missing.length ? `; e.g. missing ${v.missing.slice(0, 3).join(", ")}` : "") +
    (v.disordered.length ? `; e.g. ${v.disordered.slice(0, 2).join(" | ")}` : "");
}
