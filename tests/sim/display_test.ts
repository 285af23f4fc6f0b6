/** The sysparm_display_value × sysparm_exclude_reference_link matrix, fields and time zones. */
import { assertEquals } from "../support/assert.ts";
import { get } from "./helpers.ts";
import { withSim } from "../support/sim.ts";
import type { Simulator } from "../../src/sim/mod.ts";

function fixture(sim: Simulator) {
  const user = sim.table("sys_user").insert({ user_name: "abel.tuter", name: "Abel Tuter" });
  const inc = sim.table("incident").insert({
    caller_id: user.sys_id,
    state: "6",
    opened_at: "2024-01-01 23:30:00",
    reassignment_count: "1234",
  });
  return { user, inc };
}

async function row(sim: Simulator, sysId: string, params: Record<string, string>) {
  const res = await get(sim, `/api/now/table/incident/${sysId}`, {
    sysparm_fields: "caller_id,state,opened_at,assigned_to,reassignment_count,sys_class_name",
    ...params,
  });
  assertEquals(res.status, 200);
  return res.body.result;
}

Deno.test("display_value=false: raw strings, references as link+value objects unless links are excluded", async () => {
  await withSim({}, async (sim) => {
    const { user, inc } = fixture(sim);
    const link = `${sim.url}/api/now/table/sys_user/${user.sys_id}`;
    assertEquals(await row(sim, inc.sys_id, {}), {
      caller_id: { link, value: user.sys_id },
      state: "6",
      opened_at: "2024-01-01 23:30:00",
      assigned_to: "",
      reassignment_count: "1234",
      sys_class_name: "incident",
    });
    assertEquals(
      (await row(sim, inc.sys_id, { sysparm_exclude_reference_link: "true" })).caller_id,
      user.sys_id,
    );
  });
});

Deno.test("display_value=true: labels, reference display values, user time zone", async () => {
  await withSim({
    users: [{
      userName: "admin",
      password: "secret",
      timeZone: "America/New_York",
      dateFormat: "MM-dd-yyyy",
    }],
  }, async (sim) => {
    const { user, inc } = fixture(sim);
    const link = `${sim.url}/api/now/table/sys_user/${user.sys_id}`;
    assertEquals(await row(sim, inc.sys_id, { sysparm_display_value: "true" }), {
      caller_id: { display_value: "Abel Tuter", link },
      state: "Resolved",
      opened_at: "01-01-2024 18:30:00",
      assigned_to: "",
      reassignment_count: "1,234",
      sys_class_name: "Incident",
    });
    const flat = await row(sim, inc.sys_id, {
      sysparm_display_value: "true",
      sysparm_exclude_reference_link: "true",
    });
    assertEquals(flat.caller_id, "Abel Tuter");
  });
});

Deno.test("display_value=all: display_value/value pairs, link only on references with links", async () => {
  await withSim({}, async (sim) => {
    const { user, inc } = fixture(sim);
    const link = `${sim.url}/api/now/table/sys_user/${user.sys_id}`;
    const all = await row(sim, inc.sys_id, { sysparm_display_value: "all" });
    assertEquals(all.caller_id, { display_value: "Abel Tuter", link, value: user.sys_id });
    assertEquals(all.state, { display_value: "Resolved", value: "6" });
    assertEquals(all.opened_at, { display_value: "2024-01-01 23:30:00", value: "2024-01-01 23:30:00" });
    assertEquals(all.assigned_to, { display_value: "", value: "" });
    const noLinks = await row(sim, inc.sys_id, {
      sysparm_display_value: "all",
      sysparm_exclude_reference_link: "true",
    });
    assertEquals(noLinks.caller_id, { display_value: "Abel Tuter", value: user.sys_id });
  });
});

Deno.test("versioned paths put the version into reference links; dot-walked fields come back flat", async () => {
  await withSim({}, async (sim) => {
    const { user, inc } = fixture(sim);
    const res = await get(sim, `/api/now/v1/table/incident/${inc.sys_id}`, {
      sysparm_fields: "caller_id,caller_id.name,bogus",
    });
    assertEquals(res.body.result, {
      caller_id: { link: `${sim.url}/api/now/v1/table/sys_user/${user.sys_id}`, value: user.sys_id },
      "caller_id.name": "Abel Tuter",
    });
  });
});

Deno.test("incident rows carry about 85 fields, all strings or reference objects", async () => {
  await withSim({ seed: { incident: 20 } }, async (sim) => {
    const res = await get(sim, "/api/now/table/incident", { sysparm_limit: "20" });
    for (const r of res.body.result) {
      const values = Object.values(r);
      assertEquals(values.length >= 80, true);
      assertEquals(
        values.every((v) => typeof v === "string" || (typeof v === "object" && v !== null && "link" in v)),
        true,
      );
      assertEquals(/^[0-9a-f]{32}$/.test(r.sys_id), true);
    }
  });
});
