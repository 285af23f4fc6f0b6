/**
 * The guard that lets a table with deletion capture send its tail ahead (deletes/unread_deletions.ts), against the
 * simulator's audit: a key deleted (and restored) after the deletions read is held back, one deleted before is
 * not, and before the first audit sweep ended every key waits.
 */
import { assertEquals } from "../support/assert.ts";
import { instanceSettingsFromProps, TableClient } from "../../src/instance/mod.ts";
import { sourceSettingsFromProps } from "../../src/source/settings.ts";
import { unreadDeletions } from "../../src/source/deletes/unread_deletions.ts";
import { highWaterMark } from "../../src/source/instance_time.ts";
import { propsOf, sourceConfig, startSim } from "./support.ts";

Deno.test("unread deletions: a key deleted and restored after the horizon waits, an older deletion does not", async () => {
  const sim = await startSim({
    seed: { incident: 30 },
    clock: { mode: "frozen", at: "2024-06-01 12:00:00" },
  });
  const props = propsOf(sourceConfig(sim, { inc: "incident" }, { "svc.table.inc.capture.deletes": "true" }));
  const client = await TableClient.create(instanceSettingsFromProps(props));
  try {
    const table = sourceSettingsFromProps(props).tables[0];
    const incidents = sim.table("incident");
    const [early, late, untouched] = incidents.sysIds().slice(0, 3);
    incidents.delete(early);
    incidents.recover(early);
    sim.clock.set("2024-06-01 12:10:00");
    incidents.delete(late);
    incidents.recover(late);
    const signal = new AbortController().signal;
    const ids = [early, late, untouched];
    const horizon = { through: highWaterMark(Date.parse("2024-06-01T12:05:00Z"), 0) };
    assertEquals([...await unreadDeletions(client, table, horizon, ids, signal)], [late]);
    assertEquals(
      [...await unreadDeletions(client, table, { through: null }, ids, signal)].sort(),
      [...ids].sort(),
      "before the first audit sweep ended, every key waits",
    );
    const many = [...incidents.sysIds(), ...Array.from({ length: 150 }, (_, i) => `${i}`.padStart(32, "f"))];
    assertEquals(
      [...await unreadDeletions(client, table, horizon, many, signal)],
      [late],
      "in chunks of 100 keys",
    );
    // A key deleted and restored more often since the horizon than a page holds, then another key deleted once:
    // the page ends before the second key's row, so the whole chunk waits.
    sim.clock.set("2024-06-01 12:20:00");
    for (let i = 0; i < 20; i++) {
      incidents.delete(untouched);
      incidents.recover(untouched);
    }
    const fourth = incidents.sysIds().find((id) => !ids.includes(id))!;
    sim.clock.set("2024-06-01 12:21:00");
    incidents.delete(fourth);
    incidents.recover(fourth);
    assertEquals(
      [...await unreadDeletions(client, table, horizon, [untouched, fourth], signal)].sort(),
      [untouched, fourth].sort(),
      "a full page of deletion rows holds every key it was asked about",
    );
  } finally {
    client.close();
    await sim.stop();
  }
});
