/**
 * Changes to simulator tables for the handover tests, and the wait until a source carried them to its topics:
 * deletions go through the table API (so the instance's audit of deletions records them, as deletion capture
 * reads them), updates and inserts straight into the simulator.
 */
import { assertEquals } from "./assert.ts";
import { waitFor } from "./wait.ts";
import { currentVersions, topicVersions } from "./topic_versions.ts";
import type { Simulator } from "../../src/sim/mod.ts";

/** Deletes a row over the table API as user `userName` (`admin` unless named). */
export async function deleteOverApi(
  sim: Simulator,
  password: string,
  table: string,
  sysId: string,
  userName = "admin",
) {
  const res = await fetch(`${sim.url}/api/now/table/${table}/${sysId}`, {
    method: "DELETE",
    headers: { authorization: `Basic ${btoa(`${userName}:${password}`)}` },
  });
  await res.body?.cancel();
  assertEquals(res.status, 204, `DELETE ${table}/${sysId}`);
}

/** Deletes `deletes` rows and updates `updates` other rows of every table, inserts one; the deleted sys ids. */
export async function changeTables(
  sim: Simulator,
  password: string,
  tables: readonly string[],
  deletes: number,
  updates: number,
  label: string,
): Promise<string[]> {
  const deleted: string[] = [];
  for (const t of tables) {
    const ids = sim.table(t).sysIds();
    for (const id of ids.slice(0, deletes)) {
      await deleteOverApi(sim, password, t, id);
      deleted.push(id);
    }
    for (const id of ids.slice(deletes, deletes + updates)) {
      sim.table(t).update(id, { short_description: `${label} ${id}` });
    }
    sim.table(t).insert({ short_description: `${label} new` });
  }
  return deleted;
}

/** Waits until every current row version and a tombstone of every deleted row are on the tables' topics. */
export function allOnTopics(
  bootstrap: string,
  sim: Simulator,
  topics: Record<string, string>,
  deleted: readonly string[],
): Promise<boolean> {
  return waitFor(
    async () => {
      const tombstoned = new Set<string>();
      for (const [t, topic] of Object.entries(topics)) {
        const seen = await topicVersions(bootstrap, topic);
        if (!currentVersions(sim, t).every((v) => seen.versions.has(v))) return false;
        for (const id of seen.tombstones.keys()) tombstoned.add(id);
      }
      return deleted.every((id) => tombstoned.has(id));
    },
    60_000,
    "every current row version and every tombstone on the topics",
  );
}
