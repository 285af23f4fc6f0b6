/** Writes the instance refuses or bends: business rule aborts, data policies, write ACLs, rewrites, quota, HTML. */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { AUTH, get, send } from "./helpers.ts";
import { withSim } from "../support/sim.ts";

const TABLE = "/api/now/table/incident";

Deno.test("an aborting business rule and a data policy answer 403 and write nothing", async () => {
  await withSim({ seed: { incident: 3 } }, async (sim) => {
    sim.writeRules.add({
      kind: "abort",
      table: "incident",
      name: "Block VIP close",
      sysId: "aa11",
      when: { category: "vip" },
    });
    sim.writeRules.add({
      kind: "data_policy",
      table: "incident",
      mandatory: ["close_code"],
      when: { state: "6" },
    });
    const [id] = sim.table("incident").sysIds();
    const before = (await get(sim, `${TABLE}/${id}`)).body.result;
    const aborted = await send(sim, "PATCH", `${TABLE}/${id}`, { category: "vip", short_description: "x" });
    assertEquals(aborted.status, 403);
    assertEquals(
      aborted.body.error.detail,
      "Operation against file 'incident' was aborted by Business Rule 'Block VIP close^aa11'. " +
        "Business Rule Stack:Block VIP close",
    );
    const policy = await send(sim, "POST", TABLE, { state: "6", short_description: "y" });
    assertEquals(policy.status, 403);
    assertEquals(
      policy.body.error.detail,
      "Data Policy Exception: \n\tThe following fields are mandatory: Close Code",
    );
    assertEquals((await get(sim, `${TABLE}/${id}`)).body.result, before);
    assertEquals(sim.table("incident").count, 3);
    assertEquals((await send(sim, "POST", TABLE, { state: "6", close_code: "Solved" })).status, 201);
    sim.writeRules.add({ kind: "acl_deny", table: "incident", when: { category: "secret" } });
    const denied = await send(sim, "PATCH", `${TABLE}/${id}`, { category: "secret" });
    assertEquals(
      [denied.status, denied.body.error.detail],
      [403, "ACL Exception Update Failed due to security constraints"],
    );
  });
});

Deno.test("a write ACL keeps the old value and a rewriting rule stores its own, both answering 200", async () => {
  await withSim({ seed: { incident: 1 } }, async (sim) => {
    sim.writeRules.add({ kind: "write_acl", table: "incident", fields: ["description"] });
    sim.writeRules.add({ kind: "rewrite", table: "incident", field: "subcategory", value: "triaged" });
    const [id] = sim.table("incident").sysIds();
    const before = (await get(sim, `${TABLE}/${id}`)).body.result.description;
    const answer = await send(sim, "PATCH", `${TABLE}/${id}`, { description: "new", subcategory: "mine" });
    assertEquals(answer.status, 200);
    assertEquals([answer.body.result.description, answer.body.result.subcategory], [before, "triaged"]);
  });
});

Deno.test("a quota-cancelled write answers 200 with the error object; hibernation answers an HTML page", async () => {
  await withSim({ seed: { incident: 1 } }, async (sim) => {
    sim.writeRules.add({ kind: "quota_cancel", table: "incident", when: { short_description: "slow" } });
    const cancelled = await send(sim, "POST", TABLE, { short_description: "slow" });
    assertEquals([cancelled.status, cancelled.body.status], [200, "failure"]);
    assertStringIncludes(cancelled.body.error.message, "Transaction cancelled");
    assertEquals(sim.table("incident").count, 1);
    sim.faults.add({ fault: { kind: "html_page" } });
    const res = await fetch(`${sim.url}${TABLE}`, { headers: AUTH });
    assertEquals([res.status, res.headers.get("content-type")], [200, "text/html;charset=UTF-8"]);
    assertStringIncludes(await res.text(), "hibernating");
  });
});
