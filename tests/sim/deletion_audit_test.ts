/** The simulator records deletions as the instance does: sys_audit DELETED rows, sys_audit_delete for audited tables, RECOVERED on undelete, and only admins or audit_viewer may read them. */
import { assert, assertEquals } from "../support/assert.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { parseRecordXml } from "../../src/sim/store/deletion_audit.ts";

function auth(user: string): HeadersInit {
  return { authorization: `Basic ${btoa(`${user}:pw`)}`, accept: "application/json" };
}

Deno.test("DELETE on the table API writes sys_audit and sys_audit_delete; recover restores with RECOVERED", async () => {
  const sim = await startSimulator({
    seed: { incident: 3 },
    users: [
      { userName: "admin", password: "pw" },
      { userName: "viewer", password: "pw", admin: false, roles: ["audit_viewer"] },
      { userName: "plain", password: "pw", admin: false },
    ],
  });
  try {
    const [victim] = sim.table("incident").sysIds();
    const before = sim.table("incident").get(victim)!;
    const del = await fetch(`${sim.url}/api/now/table/incident/${victim}`, {
      method: "DELETE",
      headers: auth("admin"),
    });
    assertEquals(del.status, 204);
    const query = `tablename=incident^documentkey=${victim}^ORDERBYsys_created_on`;
    const list = async (table: string, user: string) => {
      const res = await fetch(
        `${sim.url}/api/now/table/${table}?sysparm_query=${encodeURIComponent(query)}`,
        { headers: auth(user) },
      );
      return { status: res.status, body: await res.json() };
    };
    const audit = await list("sys_audit", "viewer");
    assertEquals(audit.status, 200);
    assertEquals(audit.body.result.map((r: Record<string, string>) => r.fieldname), ["DELETED"]);
    assertEquals(audit.body.result[0].sys_created_by, "admin");
    const deleted = await list("sys_audit_delete", "admin");
    assertEquals(deleted.body.result.length, 1);
    assertEquals(parseRecordXml(deleted.body.result[0].payload).number, before.number);

    const refused = await list("sys_audit", "plain");
    assertEquals(refused.status, 403);
    assertEquals(refused.body.error.message, "Operation Failed");

    const restored = sim.table("incident").recover(victim)!;
    assertEquals(restored.sys_updated_on, before.sys_updated_on);
    assertEquals(restored.short_description, before.short_description);
    const after = await list("sys_audit", "admin");
    assertEquals(after.body.result.map((r: Record<string, string>) => r.fieldname), ["DELETED", "RECOVERED"]);
    assertEquals(sim.table("incident").recover(victim), undefined);
  } finally {
    await sim.stop();
  }
});

Deno.test("every table's deletions are audited; only audited tables keep the record; a purge leaves no trace", async () => {
  const sim = await startSimulator({ seed: { incident: 2 } });
  try {
    const user = sim.table("sys_user").insert({ user_name: "gone" });
    assert(sim.table("sys_user").delete(user.sys_id));
    const audit = sim.table("sys_audit");
    const ids = audit.sysIds().map((id) => audit.get(id)!);
    assertEquals(ids.map((r) => [r.tablename, r.documentkey, r.fieldname]), [[
      "sys_user",
      user.sys_id,
      "DELETED",
    ]]);
    assertEquals(sim.table("sys_audit_delete").count, 0);
    const [inc] = sim.table("incident").sysIds();
    assert(sim.table("incident").delete(inc, { audit: false }));
    assertEquals(audit.count, 1);
  } finally {
    await sim.stop();
  }
});
