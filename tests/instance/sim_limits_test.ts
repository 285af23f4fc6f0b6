/** The response size limit (after decompression) and the User-Agent, against real sockets. */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { TableClient } from "../../src/instance/table_client.ts";
import { ResponseTooLargeError } from "../../src/instance/errors.ts";
import { testSettings } from "./_helpers.ts";

const USER = { userName: "integration", password: "sim-Password-85" };
const auth = { type: "basic" as const, username: USER.userName, password: USER.password };
const LIST = "GET /api/now/table/incident";
const LIMIT = 256 * 1024;

Deno.test("limits: an oversized response fails with a clear error, not retried", async () => {
  const sim = await startSimulator({ seed: { incident: 3 }, users: [USER] });
  const client = await TableClient.create(testSettings(sim.url, { auth, http: { maxResponseBytes: LIMIT } }));
  try {
    sim.faults.add({ route: LIST, fault: { kind: "oversized", bytes: 4 * LIMIT } });
    const error = await assertRejects(() => client.list("incident", { limit: 3 }), ResponseTooLargeError);
    assertEquals(
      error.message,
      `GET /api/now/table/incident response exceeds svc.http.max.response.bytes (${LIMIT} bytes); use a smaller page or raise the limit`,
    );
    assertEquals(sim.journal.find({ route: LIST }).length, 1);
    // Just under the limit is fine.
    sim.faults.clear();
    sim.faults.add({ route: LIST, fault: { kind: "oversized", bytes: LIMIT - 100 } });
    assertEquals((await client.list("incident", { limit: 3 })).rows.length, 3);
  } finally {
    client.close();
    await sim.stop();
  }
});

Deno.test("limits: a gzip bomb (small on the wire, huge decompressed) fails on the decompressed size", async () => {
  const sim = await startSimulator({ seed: { incident: 3 }, users: [USER] });
  const client = await TableClient.create(testSettings(sim.url, { auth, http: { maxResponseBytes: LIMIT } }));
  try {
    // 32 MiB of JSON whitespace gzips to a few tens of KiB: far below the limit on the wire.
    sim.faults.add({ route: LIST, fault: { kind: "oversized", bytes: 32 * 1024 * 1024 } });
    sim.faults.add({ route: LIST, fault: { kind: "gzip" } });
    const error = await assertRejects(() => client.list("incident", { limit: 3 }), ResponseTooLargeError);
    assert(error.message.includes(`(${LIMIT} bytes, counted after decompression)`), error.message);
    const [entry] = sim.journal.find({ route: LIST });
    assert(entry.faults.includes("gzip") && entry.faults.includes("oversized"));
    // A compressed response within the limit is read normally.
    sim.faults.clear();
    sim.faults.add({ route: LIST, fault: { kind: "gzip" } });
    assertEquals((await client.list("incident", { limit: 3 })).rows.length, 3);
  } finally {
    client.close();
    await sim.stop();
  }
});
