/** Single-record routes, system fields, PATCH versus PUT, errors, dictionary and view. */
import { assert, assertEquals } from "../support/assert.ts";
import { get, send } from "./helpers.ts";
import { withSim } from "../support/sim.ts";

Deno.test("POST creates with 201, Location and stamped system fields", async () => {
  await withSim({}, async (sim) => {
    const res = await send(sim, "POST", "/api/now/table/incident", {
      short_description: "new",
      unknown_field: "x",
    });
    assertEquals(res.status, 201);
    const r = res.body.result;
    assertEquals(res.headers.get("location"), `${sim.url}/api/now/table/incident/${r.sys_id}`);
    assertEquals([r.sys_created_on, r.sys_updated_on, r.sys_mod_count, r.sys_created_by], [
      "2024-03-01 12:00:00",
      "2024-03-01 12:00:00",
      "0",
      "admin",
    ]);
    assert(/^INC\d{7}$/.test(r.number), r.number);
    assertEquals([r.state, r.active, r.sys_class_name, r.priority], ["1", "true", "incident", "5"]);
    const urgent = await send(sim, "POST", "/api/now/table/incident", { impact: "1", urgency: "2" });
    assertEquals(urgent.body.result.priority, "2");
    const closed = await send(sim, "PATCH", `/api/now/table/incident/${r.sys_id}`, {
      state: "7",
      urgency: "2",
    });
    assertEquals([closed.body.result.active, closed.body.result.priority], ["false", "4"]);
    assertEquals("unknown_field" in r, false);
  });
});

Deno.test("PATCH updates given fields, bumps sys_mod_count and sys_updated_on; empty string clears", async () => {
  await withSim({}, async (sim) => {
    const created = sim.table("incident").insert({
      short_description: "a",
      description: "keep",
      category: "network",
    });
    sim.clock.advance(5000);
    const res = await send(sim, "PATCH", `/api/now/table/incident/${created.sys_id}`, {
      short_description: "b",
      category: "",
      comments: "hello",
    });
    assertEquals(res.status, 200);
    const r = res.body.result;
    assertEquals([r.short_description, r.description, r.category, r.comments], ["b", "keep", "", ""]);
    assertEquals([r.sys_mod_count, r.sys_updated_on, r.sys_updated_by], [
      "1",
      "2024-03-01 12:00:05",
      "admin",
    ]);
    // An update that changes nothing is not a write.
    sim.clock.advance(5000);
    const again = await send(sim, "PATCH", `/api/now/table/incident/${created.sys_id}`, {
      short_description: "b",
    });
    assertEquals([again.body.result.sys_mod_count, again.body.result.sys_updated_on], [
      "1",
      "2024-03-01 12:00:05",
    ]);
  });
});

Deno.test("PUT keeps omitted fields by default; the switch makes it clear them", async () => {
  await withSim({}, async (sim) => {
    const created = sim.table("incident").insert({ short_description: "a", description: "keep" });
    const put = await send(sim, "PUT", `/api/now/table/incident/${created.sys_id}`, {
      short_description: "b",
    });
    assertEquals([put.body.result.short_description, put.body.result.description], ["b", "keep"]);
    sim.putClearsOmittedFields = true;
    const cleared = await send(sim, "PUT", `/api/now/table/incident/${created.sys_id}`, {
      short_description: "c",
    });
    assertEquals([cleared.body.result.short_description, cleared.body.result.description], ["c", ""]);
    assertEquals(cleared.body.result.number, created.number);
    const patched = await send(sim, "PATCH", `/api/now/table/incident/${created.sys_id}`, {
      short_description: "d",
    });
    assertEquals(patched.body.result.short_description, "d");
  });
});

Deno.test("DELETE answers 204 and then 404 with the instance's body", async () => {
  await withSim({}, async (sim) => {
    const created = sim.table("incident").insert({ short_description: "a" });
    const del = await send(sim, "DELETE", `/api/now/table/incident/${created.sys_id}`);
    assertEquals([del.status, del.body], [204, undefined]);
    const again = await send(sim, "DELETE", `/api/now/table/incident/${created.sys_id}`);
    assertEquals(again.status, 404);
    assertEquals(again.body, {
      error: {
        message: "No Record found",
        detail: "Record doesn't exist or ACL restricts the record retrieval",
      },
      status: "failure",
    });
  });
});

Deno.test("empty results: [] on v2 and unversioned, 404 on v1; unknown table is 400", async () => {
  await withSim({}, async (sim) => {
    const none = { sysparm_query: "number=NOPE" };
    assertEquals((await get(sim, "/api/now/table/incident", none)).body, { result: [] });
    assertEquals((await get(sim, "/api/now/v2/table/incident", none)).body, { result: [] });
    const v1 = await get(sim, "/api/now/v1/table/incident", none);
    assertEquals([v1.status, v1.body.error.message, v1.body.error.detail], [
      404,
      "No Record found",
      "Records matching query not found. Check query parameter or offset parameter",
    ]);
    const bad = await get(sim, "/api/now/table/not_a_table");
    assertEquals([bad.status, bad.body], [400, {
      error: { message: "Invalid table not_a_table", detail: null },
      status: "failure",
    }]);
    const badJson = await fetch(`${sim.url}/api/now/table/incident`, {
      method: "POST",
      headers: { authorization: "Basic " + btoa("admin:secret"), "content-type": "application/json" },
      body: "{not json",
    });
    assertEquals(badJson.status, 400);
    assertEquals((await badJson.json()).error.message, "Exception while reading request");
  });
});

Deno.test("sys_db_object and sys_dictionary describe the tables; incident extends task", async () => {
  await withSim({}, async (sim) => {
    const inc = await get(sim, "/api/now/table/sys_db_object", {
      sysparm_query: "name=incident",
      sysparm_fields: "name,super_class",
      sysparm_exclude_reference_link: "true",
    });
    const parentId = inc.body.result[0].super_class;
    const parent = await get(sim, "/api/now/table/sys_db_object", {
      sysparm_query: `sys_id=${parentId}`,
      sysparm_fields: "name",
    });
    assertEquals(parent.body.result, [{ name: "task" }]);
    const walked = await get(sim, "/api/now/table/sys_db_object", {
      sysparm_query: "name=incident",
      sysparm_fields: "super_class.name",
    });
    assertEquals(walked.body.result, [{ "super_class.name": "task" }]);
    const dict = await get(sim, "/api/now/table/sys_dictionary", {
      sysparm_query: "name=incident^element=caller_id",
      sysparm_fields: "internal_type,reference",
      sysparm_exclude_reference_link: "true",
    });
    assertEquals(dict.body.result, [{ internal_type: "reference", reference: "sys_user" }]);
    const taskOwn = await get(sim, "/api/now/table/sys_dictionary", {
      sysparm_query: "name=task^element=sys_updated_on",
      sysparm_fields: "element",
    });
    assertEquals(taskOwn.body.result.length, 1);
  });
});

Deno.test("the database view has prefixed columns, follows the base table and is read-only", async () => {
  await withSim({}, async (sim) => {
    const user = sim.table("sys_user").insert({
      user_name: "v.user",
      name: "View User",
      email: "v@example.com",
    });
    const a = sim.table("incident").insert({ short_description: "joined", caller_id: user.sys_id });
    sim.table("incident").insert({ short_description: "no caller" });
    const res = await get(sim, "/api/now/table/incident_caller", {
      sysparm_query: "ORDERBYinc_short_description",
      sysparm_fields: "inc_sys_id,inc_short_description,usr_name,inc_sys_updated_on",
    });
    assertEquals(res.body.result, [
      {
        inc_sys_id: a.sys_id,
        inc_short_description: "joined",
        usr_name: "View User",
        inc_sys_updated_on: "2024-03-01 12:00:00",
      },
      {
        inc_sys_id: res.body.result[1].inc_sys_id,
        inc_short_description: "no caller",
        usr_name: "",
        inc_sys_updated_on: "2024-03-01 12:00:00",
      },
    ]);
    const filtered = await get(sim, "/api/now/table/incident_caller", {
      sysparm_query: "usr_name=View User",
      sysparm_fields: "inc_sys_id",
    });
    assertEquals(filtered.body.result, [{ inc_sys_id: a.sys_id }]);
    const post = await send(sim, "POST", "/api/now/table/incident_caller", { inc_short_description: "x" });
    assertEquals(post.status, 403);
  });
});

Deno.test("HEAD answers like GET without a body; unknown paths are 400", async () => {
  await withSim({ seed: { problem: 3 } }, async (sim) => {
    const head = await fetch(`${sim.url}/api/now/table/problem`, {
      method: "HEAD",
      headers: { authorization: "Basic " + btoa("admin:secret") },
    });
    assertEquals([head.status, head.headers.get("x-total-count"), await head.text()], [200, "3", ""]);
    const unknown = await get(sim, "/api/now/nothing/here");
    assertEquals([unknown.status, unknown.body.error.message], [
      400,
      "Requested URI does not represent any resource",
    ]);
  });
});
