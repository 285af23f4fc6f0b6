/** Every operator, precedence, ^NQ, ordering and unknown-field handling, through the HTTP API. */
import { assertEquals } from "../support/assert.ts";
import { query } from "./helpers.ts";
import { withSim } from "../support/sim.ts";
import type { Simulator } from "../../src/sim/mod.ts";

type Fixture = Record<"A" | "B" | "C" | "D", string>;

function insertFixture(sim: Simulator): Fixture {
  const t = sim.table("incident");
  const ins = (values: Record<string, string>) => t.insert(values).sys_id;
  return {
    A: ins({
      short_description: "Email down",
      impact: "1",
      urgency: "1",
      state: "1",
      category: "network",
      opened_at: "2024-01-01 00:00:00",
      reassignment_count: "10",
    }),
    B: ins({
      short_description: "email slow",
      impact: "2",
      urgency: "2",
      state: "2",
      category: "software",
      opened_at: "2024-01-02 00:00:00",
      reassignment_count: "9",
    }),
    C: ins({
      short_description: "VPN down",
      impact: "3",
      urgency: "2",
      state: "6",
      category: "",
      opened_at: "",
      reassignment_count: "2",
    }),
    D: ins({
      short_description: "Printer",
      impact: "2",
      urgency: "3",
      state: "7",
      category: "hardware",
      opened_at: "2024-01-03 10:00:00",
      reassignment_count: "",
    }),
  };
}

function names(f: Fixture, ids: string[]): string {
  const byId = Object.fromEntries(Object.entries(f).map(([k, v]) => [v, k]));
  return ids.map((id) => byId[id] ?? "?").sort().join("");
}

Deno.test("every operator selects the expected rows", async () => {
  await withSim({}, async (sim) => {
    const f = insertFixture(sim);
    const cases: Array<[string, string]> = [
      ["impact=2", "BD"],
      ["impact!=2", "AC"],
      ["impact>1", "BCD"],
      ["impact>=2", "BCD"],
      ["impact<2", "A"],
      ["impact<=2", "ABD"],
      // integers compare as numbers, not text ("10" > "9")
      ["reassignment_count>9", "A"],
      ["short_descriptionSTARTSWITHemail", "AB"],
      ["short_descriptionENDSWITHdown", "AC"],
      ["short_descriptionLIKEdow", "AC"],
      ["short_descriptionNOT LIKEemail", "CD"],
      ["stateIN1,6", "AC"],
      ["stateNOT IN1,6", "BD"],
      ["categoryISEMPTY", "C"],
      ["categoryISNOTEMPTY", "ABD"],
      // empty values behave like NULL: != and NOT IN do not match them
      ["category!=network", "BD"],
      ["categoryNOT INnetwork", "BD"],
      ["impactBETWEEN2@3", "BCD"],
      ["opened_atBETWEEN2024-01-02 00:00:00@2024-01-03 10:00:00", "BD"],
      ["opened_at>2024-01-01 00:00:00", "BD"],
      ["opened_at<2024-01-02 00:00:00", "A"],
      ["opened_at=2024-01-03 10:00:00", "D"],
      ["short_description=EMAIL DOWN", "A"],
      ["impactSAMEASurgency", "AB"],
      ["impactNSAMEASurgency", "CD"],
    ];
    for (const [q, expected] of cases) assertEquals(names(f, await query(sim, "incident", q)), expected, q);
  });
});

Deno.test("^OR binds tighter than ^ and ^NQ ORs whole groups", async () => {
  await withSim({}, async (sim) => {
    const f = insertFixture(sim);
    // impact=2 AND (state=1 OR state=7) = D; read as (impact=2 AND state=1) OR state=7 it would also be D,
    // so the second form tells them apart: (state=1 OR state=7) AND impact=2 = D, not A+D.
    assertEquals(names(f, await query(sim, "incident", "impact=2^state=1^ORstate=7")), "D");
    assertEquals(names(f, await query(sim, "incident", "state=1^ORstate=7^impact=2")), "D");
    // (impact=1 AND state=1) OR (state=6)
    assertEquals(names(f, await query(sim, "incident", "impact=1^state=1^NQstate=6")), "AC");
    // the condition after ^NQ constrains only the last group
    assertEquals(names(f, await query(sim, "incident", "state=6^NQimpact=2^state=7")), "CD");
  });
});

Deno.test("ORDERBY with several keys and ORDERBYDESC", async () => {
  await withSim({}, async (sim) => {
    const f = insertFixture(sim);
    const order = async (q: string) =>
      (await query(sim, "incident", q)).map((id) => Object.entries(f).find(([, v]) => v === id)![0]).join("");
    assertEquals(await order("ORDERBYimpact^ORDERBYDESCshort_description"), "ADBC");
    assertEquals(await order("ORDERBYDESCimpact^ORDERBYshort_description"), "CBDA");
    // empty values sort first ascending (like NULL)
    assertEquals(await order("ORDERBYopened_at"), "CABD");
    assertEquals(await order("ORDERBYreassignment_count"), "DCBA");
  });
});

Deno.test("unknown fields are dropped, or return no rows when the property says so", async () => {
  await withSim({}, async (sim) => {
    const f = insertFixture(sim);
    assertEquals(names(f, await query(sim, "incident", "impact=2^no_such_field=1")), "BD");
    assertEquals(names(f, await query(sim, "incident", "no_such_field=1")), "ABCD");
    assertEquals(names(f, await query(sim, "incident", "impact=1^ORno_such_field=1")), "A");
    sim.invalidQueryReturnsNoRows = true;
    assertEquals(await query(sim, "incident", "impact=2^no_such_field=1"), []);
  });
});

Deno.test("dot-walked fields in queries follow references", async () => {
  await withSim({}, async (sim) => {
    const users = sim.table("sys_user");
    const abel = users.insert({ user_name: "abel.t", name: "Abel Tuter", email: "abel@example.com" });
    const id = sim.table("incident").insert({ short_description: "x", caller_id: abel.sys_id }).sys_id;
    sim.table("incident").insert({ short_description: "y" });
    assertEquals(await query(sim, "incident", "caller_id.name=Abel Tuter"), [id]);
    assertEquals(await query(sim, "incident", "caller_id.emailENDSWITHexample.com"), [id]);
  });
});

Deno.test("date-times compare as UTC, and javascript:gs.dateGenerate uses the user's zone", async () => {
  await withSim(
    { users: [{ userName: "admin", password: "secret", timeZone: "Europe/Berlin" }] },
    async (sim) => {
      const f = insertFixture(sim);
      // 2024-01-02 01:00 Berlin = 2024-01-02 00:00 UTC
      assertEquals(
        names(
          f,
          await query(sim, "incident", "opened_at>=javascript:gs.dateGenerate('2024-01-02','01:00:00')"),
        ),
        "BD",
      );
      assertEquals(names(f, await query(sim, "incident", "opened_at>=2024-01-02 00:00:00")), "BD");
    },
  );
});

Deno.test("name=value parameters filter without sysparm_query and accept choice labels", async () => {
  await withSim({}, async (sim) => {
    const f = insertFixture(sim);
    const { get } = await import("./helpers.ts");
    const res = await get(sim, "/api/now/table/incident", { state: "Closed", sysparm_fields: "sys_id" });
    assertEquals(res.body.result.map((r: { sys_id: string }) => r.sys_id), [f.D]);
  });
});
