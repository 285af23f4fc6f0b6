/**
 * The Aggregate API client (aggregate_count.ts) against the simulator: MIN of a field and the count, both taken
 * before access control; no matching row is a null MIN; a refused call is "not available", not a failure.
 */
import { assertEquals } from "../support/assert.ts";
import {
  aggregateCount,
  aggregateMin,
  instanceSettingsFromProps,
  TableClient,
} from "../../src/instance/mod.ts";
import { insertRow, propsOf, sourceConfig, startSim } from "../source/support.ts";

Deno.test("aggregate: MIN and count before access control; no row is a null MIN; a refusal is unavailable", async () => {
  const sim = await startSim();
  const client = await TableClient.create(
    instanceSettingsFromProps(propsOf(sourceConfig(sim, { inc: "incident" }))),
  );
  try {
    const first = insertRow(sim, "incident", { sys_updated_on: "2024-05-01 08:00:00" });
    insertRow(sim, "incident", { sys_updated_on: "2024-05-02 08:00:00" });
    insertRow(sim, "incident", { sys_updated_on: "2024-05-03 08:00:00" });
    sim.faults.add({ table: "incident", fault: { kind: "acl_hide", sysIds: [first] } });
    const window = "sys_updated_on>=2024-01-01 00:00:00^sys_updated_on<=2024-12-31 23:59:59";
    assertEquals(
      await aggregateMin(client.http, "incident", "sys_updated_on", window),
      { min: "2024-05-01 08:00:00" },
      "the hidden first row counts",
    );
    assertEquals(await aggregateCount(client.http, "incident", window), { count: 3 });
    assertEquals(
      await aggregateMin(client.http, "incident", "sys_updated_on", "sys_updated_on>=2025-01-01 00:00:00"),
      { min: null },
    );
    sim.faults.add({ route: "GET /api/now/stats/incident", fault: { kind: "status", status: 403 } });
    assertEquals(
      await aggregateMin(client.http, "incident", "sys_updated_on", window),
      { unavailable: "GET /api/now/stats/incident answered HTTP 403" },
    );
  } finally {
    client.close();
    await sim.stop();
  }
});
