/** Drift the cursor cannot see: silent updates, purges, old-dated inserts and rollbacks, over HTTP and directly. */
import { assert, assertEquals } from "../support/assert.ts";
import { get, query } from "./helpers.ts";
import { withSim } from "../support/sim.ts";
import type { Simulator } from "../../src/sim/mod.ts";

async function hook(sim: Simulator, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sim.url}/sim/drift/${path}`, {
    method: body === undefined && path === "snapshots" ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

Deno.test("a silent update changes the row but not sys_updated_on nor sys_mod_count; the cursor query misses it", async () => {
  await withSim({ seed: { incident: 20 } }, async (sim) => {
    const table = sim.table("incident");
    const id = table.sysIds()[3];
    const before = table.get(id)!;
    sim.clock.advance(60_000);
    const answer = await hook(sim, "incident/silent-update", {
      sys_id: id,
      values: { short_description: "changed by a fix script", sys_mod_count: "99" },
    });
    assertEquals(answer.status, 200);
    const after = table.get(id)!;
    assertEquals(after.short_description, "changed by a fix script");
    assertEquals(
      [after.sys_updated_on, after.sys_mod_count, after.sys_updated_by],
      [before.sys_updated_on, before.sys_mod_count, before.sys_updated_by],
    );
    assertEquals(await query(sim, "incident", `sys_updated_on>${before.sys_updated_on}^sys_id=${id}`), []);
  });
});

Deno.test("a purge deletes without an audit row; a dated insert lands below the newest timestamp", async () => {
  await withSim({ seed: { incident: 20 } }, async (sim) => {
    const table = sim.table("incident");
    const id = table.sysIds()[0];
    assertEquals((await hook(sim, "incident/purge", { sys_id: id })).status, 200);
    assertEquals(table.get(id), undefined);
    assertEquals(await query(sim, "sys_audit", `documentkey=${id}`), []);
    assertEquals(await query(sim, "sys_audit_delete", `documentkey=${id}`), []);

    const dated = await hook(sim, "incident/insert-dated", {
      sys_updated_on: "2020-02-02 02:02:02",
      values: { short_description: "restored from XML", sys_id: "0123456789abcdef0123456789abcdef" },
    });
    assertEquals(dated.status, 201);
    const row = table.get("0123456789abcdef0123456789abcdef")!;
    assertEquals([row.sys_updated_on, row.sys_created_on], ["2020-02-02 02:02:02", "2020-02-02 02:02:02"]);
    assertEquals(
      table.sysIds()[0],
      "0123456789abcdef0123456789abcdef",
      "first in (sys_updated_on, sys_id) order",
    );
  });
});

Deno.test("a rollback restores a table's earlier state: inserts gone, updates and deletions undone, old timestamps", async () => {
  await withSim({ seed: { incident: 30 } }, async (sim) => {
    const table = sim.table("incident");
    const ids = table.sysIds();
    const old = new Map(ids.map((id) => [id, table.get(id)!]));
    const snap = await hook(sim, "incident/snapshot");
    assertEquals(snap.status, 201);
    sim.clock.advance(3_600_000);
    table.update(ids[1], { short_description: "after the backup" });
    table.delete(ids[2]);
    const added = table.insert({ short_description: "new after the backup" }).sys_id;
    const listed = await hook(sim, "snapshots");
    assertEquals(listed.body.map((s: { table: string; rows: number }) => [s.table, s.rows]), [[
      "incident",
      30,
    ]]);

    const restored = await hook(sim, "restore", { snapshot: snap.body.snapshot });
    assertEquals(restored.body, { restored: 1, reverted: 1, removed: 1 });
    assertEquals(table.get(added), undefined);
    assertEquals(table.count, 30);
    for (const id of ids) assertEquals(table.get(id), old.get(id), id);
    const newest = await get(sim, "/api/now/table/incident", {
      sysparm_query: "ORDERBYDESCsys_updated_on",
      sysparm_limit: "1",
      sysparm_fields: "sys_updated_on",
    });
    assert(
      newest.body.result[0].sys_updated_on < "2024-03-01 12:00:01",
      newest.body.result[0].sys_updated_on,
    );
  });
});

Deno.test("drift hooks name what is wrong: unknown row, table, hook and bad bodies", async () => {
  await withSim({ seed: { incident: 2 } }, async (sim) => {
    const noRow = await hook(sim, "incident/purge", { sys_id: "nope" });
    assertEquals([noRow.status, noRow.body.error.message], [
      400,
      "/sim/drift/incident/purge: no row nope in incident",
    ]);
    assertEquals(
      (await hook(sim, "nosuch/snapshot", {})).body.error.message,
      "/sim/drift/nosuch/snapshot: no stored table nosuch",
    );
    assertEquals((await hook(sim, "incident/explode", {})).status, 404);
    assertEquals(
      (await hook(sim, "incident/insert-dated", { sys_updated_on: "yesterday" })).body.error.message,
      "/sim/drift/incident/insert-dated: updatedOn is not yyyy-MM-dd HH:mm:ss: yesterday",
    );
    assertEquals((await hook(sim, "restore", { snapshot: "snapshot-9" })).status, 400);
  });
});

Deno.test("the writer's silentShare makes some updates without moving sys_updated_on", async () => {
  await withSim({ seed: { incident: 50 } }, async (sim) => {
    const table = sim.table("incident");
    const before = new Map(table.sysIds().map((id) => [id, table.get(id)!]));
    sim.clock.advance(60_000);
    sim.writer.start({ rowsPerSecond: 200, insertRatio: 0, silentShare: 0.5 });
    await new Promise((r) => setTimeout(r, 400));
    sim.writer.stop();
    let silent = 0, stamped = 0;
    for (const [id, old] of before) {
      const row = table.get(id)!;
      if (row.short_description === old.short_description) continue;
      if (row.sys_updated_on === old.sys_updated_on && row.sys_mod_count === old.sys_mod_count) silent++;
      else stamped++;
    }
    assert(silent > 0 && stamped > 0, `silent ${silent}, stamped ${stamped}`);
  });
});
