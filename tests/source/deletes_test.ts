/**
 * Deletion capture in the source task against the simulator: tombstones keyed by sys_id with the DELETE header
 * under the delete partition; the envelope's op "d" record first; recovered rows re-emitted; a delete and a
 * re-create of one key in time order; no tombstone sent twice across a graceful stop; the probe naming the role;
 * and nothing of this when capture is off.
 */
import { assert, assertEquals } from "../support/assert.ts";
import type { SourceRecord } from "../../src/connect/record.ts";
import type { TableProgress } from "../../src/connect/table_progress.ts";
import { StartupProbeError } from "../../src/source/startup_probe.ts";
import { overlapSentFromOffset } from "../../src/source/overlap_ledger.ts";
import { deleteOverApi } from "../support/table_changes.ts";
import {
  PASSWORD,
  pollAcked,
  pollUntil,
  pollUntilQuiet,
  sourceConfig,
  startSim,
  startTask,
  stopGracefully,
  stopTask,
  TestContext,
  USER,
} from "./support.ts";
import type { Simulator } from "../../src/sim/mod.ts";

function operation(r: SourceRecord): string | undefined {
  return r.headers.lastWithName("svc.source.operation")?.value as string | undefined;
}

function capture(sim: Simulator, extra: Record<string, string> = {}) {
  return sourceConfig(sim, { inc: "incident" }, {
    "svc.table.inc.capture.deletes": "true",
    "svc.source.batch.size": "100",
    // The order of a deletion and a re-create in one second rests on the safety lag, as the cursor does.
    "svc.source.safety.lag.seconds": "1",
    ...extra,
  });
}

/** Deletes an incident over the table API as the connector's user (the audit of deletions records it). */
const deleteIncident = (sim: Simulator, sysId: string) =>
  deleteOverApi(sim, PASSWORD, "incident", sysId, USER);

Deno.test("deletes: a deletion becomes a tombstone keyed by sys_id, under the delete partition", async () => {
  const sim = await startSim({ seed: { incident: 120 } });
  const driven = await startTask(capture(sim));
  try {
    await pollUntil(driven, (r) => r.length >= 120);
    const [a, b] = sim.table("incident").sysIds();
    await deleteIncident(sim, a);
    await deleteIncident(sim, b);
    const later = await pollUntil(driven, (r) => r.filter((x) => x.value === null).length >= 2);
    const tombstones = later.filter((r) => r.value === null);
    assertEquals(tombstones.map((r) => r.key).sort(), [a, b].sort());
    for (const t of tombstones) {
      assertEquals(operation(t), "DELETE");
      assertEquals(t.valueSchema, null);
      assertEquals(t.topic, "topic.inc");
      assertEquals(t.sourcePartition?.stream, "deletes");
      assertEquals(t.sourcePartition?.table, "incident");
      assert(typeof t.sourceOffset?.sys_id === "string", "the offset is the audit cursor");
    }
    const upserts = driven.records.filter((r) => r.value !== null);
    assert(upserts.every((r) => operation(r) === "UPSERT" && r.sourcePartition?.stream === undefined));
  } finally {
    driven.context.abort();
    await driven.task.stop();
    await sim.stop();
  }
});

Deno.test("deletes with the envelope: an op d record, then the tombstone", async () => {
  const sim = await startSim({ seed: { incident: 30 } });
  const driven = await startTask(capture(sim, { "svc.source.emit.envelope": "true" }));
  try {
    await pollUntil(driven, (r) => r.length >= 30);
    const [victim] = sim.table("incident").sysIds();
    await deleteIncident(sim, victim);
    const later = await pollUntil(driven, (r) => r.some((x) => x.value === null));
    const mine = later.filter((r) => r.key === victim);
    assertEquals(mine.length, 2);
    const envelope = mine[0].value as Record<string, unknown>;
    assertEquals(envelope.op, "d");
    assertEquals(envelope.after, null);
    assertEquals((envelope.before as Record<string, unknown>).sys_id, victim);
    assertEquals(mine[1].value, null);
    assertEquals(mine.map(operation), ["DELETE", "DELETE"]);
  } finally {
    driven.context.abort();
    await driven.task.stop();
    await sim.stop();
  }
});

Deno.test("deletes: a recovered row is emitted again; a delete then a re-create of one key arrive in that order", async () => {
  const sim = await startSim({ seed: { incident: 40 } });
  const driven = await startTask(capture(sim));
  try {
    await pollUntil(driven, (r) => r.length >= 40);
    const [restored, recreated] = sim.table("incident").sysIds();
    const original = sim.table("incident").get(recreated)!;
    // A slow audit table: without the horizon the table's poller would emit the re-created row first.
    sim.faults.add({ table: "sys_audit", fault: { kind: "latency", ms: 300 } });
    await deleteIncident(sim, restored);
    await deleteIncident(sim, recreated);
    // The same second: the re-created row's timestamp is the deletion's.
    sim.table("incident").recover(restored);
    sim.table("incident").insert({ sys_id: recreated, short_description: "again", number: original.number });
    await pollUntil(driven, (r) => r.filter((x) => x.key === restored || x.key === recreated).length >= 4);
    await pollUntilQuiet(driven);
    const after40 = driven.records.slice(40);
    const restoredRecords = after40.filter((r) => r.key === restored);
    assertEquals(restoredRecords.map((r) => r.value === null ? "tombstone" : "row"), ["tombstone", "row"]);
    assertEquals((restoredRecords[1].value as Record<string, string>).sys_id, restored);
    assertEquals(operation(restoredRecords[1]), "UPSERT");
    assertEquals(restoredRecords[1].sourcePartition?.stream, "deletes");
    const recreatedRecords = after40.filter((r) => r.key === recreated);
    assertEquals(recreatedRecords[0].value, null, "the tombstone comes first");
    assert(recreatedRecords.length >= 2, "the re-created row was not emitted");
    assertEquals((recreatedRecords.at(-1)!.value as Record<string, string>).short_description, "again");
  } finally {
    driven.context.abort();
    await driven.task.stop();
    await sim.stop();
  }
});

Deno.test("deletes: after a graceful stop the next run sends no tombstone or recovered row again", async () => {
  const sim = await startSim({ seed: { incident: 30 } });
  // A re-read window wide enough to hold every audit row of this test.
  const config = capture(sim, { "svc.source.overlap.seconds": "60", "svc.source.emit.envelope": "true" });
  const context = new TestContext();
  const first = await startTask(config, context);
  const [a, b, c] = sim.table("incident").sysIds();
  try {
    await pollAcked(first, (r) => r.length >= 30);
    for (const id of [a, b, c]) await deleteIncident(sim, id);
    sim.table("incident").recover(c);
    // a and b: op d record and tombstone each; c: those and the recovered row.
    await pollAcked(first, (r) => r.filter((x) => x.key === c && x.value !== null).length >= 2);
  } finally {
    await stopGracefully(first);
  }
  assertEquals(first.records.filter((r) => r.value === null).map((r) => r.key).sort(), [a, b, c].sort());
  const deleteOffset = [...context.offsets.entries()].find(([key]) => key.includes('"stream":"deletes"'))
    ?.[1];
  assertEquals(
    overlapSentFromOffset(deleteOffset ?? null).length,
    4,
    "the final delete offset lists 4 audit rows",
  );

  const second = await startTask(config, context.renew());
  try {
    assertEquals(await pollUntilQuiet(second, 8), [], "nothing sent again");
    // A deletion after the handover still comes, once.
    const [d] = sim.table("incident").sysIds();
    await deleteIncident(sim, d);
    await pollUntil(second, (r) => r.some((x) => x.value === null));
    await pollUntilQuiet(second);
    assertEquals(second.records.map((r) => [r.key, r.value === null]), [[d, false], [d, true]]);
  } finally {
    await stopTask(second);
    await sim.stop();
  }
});

Deno.test("deletes: a deletion while the task is stopped comes after the restart, even before any tombstone", async () => {
  const sim = await startSim({ seed: { incident: 20 } });
  const config = capture(sim);
  const context = new TestContext();
  const first = await startTask(config, context);
  try {
    await pollAcked(first, (r) => r.length >= 20);
  } finally {
    await stopGracefully(first);
  }
  // No deletion yet, so no delete offset: the next run must not start its audit stream at its own present.
  const [victim] = sim.table("incident").sysIds();
  await deleteIncident(sim, victim);
  await new Promise((r) => setTimeout(r, 1500)); // the restart comes well after the deletion
  const second = await startTask(config, context.renew());
  try {
    await pollUntil(second, (r) => r.some((x) => x.value === null));
    assertEquals(second.records.filter((r) => r.value === null).map((r) => r.key), [victim]);
  } finally {
    await stopTask(second);
    await sim.stop();
  }
});

Deno.test("deletes: the probe refuses to start without read access to sys_audit, naming the role", async () => {
  const sim = await startSim({
    seed: { incident: 5 },
    users: [{ userName: "integration", password: "s3cret-pass", admin: false }],
  });
  try {
    let error: unknown;
    try {
      const driven = await startTask(capture(sim), new TestContext());
      await driven.task.stop();
    } catch (e) {
      error = e;
    }
    assert(error instanceof StartupProbeError, `expected a StartupProbeError, got ${error}`);
    assert(/sys_audit/.test(error.message) && /audit_viewer/.test(error.message), error.message);
    assert(error.message.includes("svc.table.inc.capture.deletes"), error.message);
  } finally {
    await sim.stop();
  }
});

Deno.test("deletes: with the audit_viewer role the probe passes; without capture nothing is read from sys_audit", async () => {
  const sim = await startSim({
    seed: { incident: 5 },
    users: [{ userName: "integration", password: "s3cret-pass", admin: false, roles: ["audit_viewer"] }],
  });
  try {
    const driven = await startTask(capture(sim));
    await pollUntil(driven, (r) => r.length >= 5);
    driven.context.abort();
    await driven.task.stop();
    const plain = await startTask(sourceConfig(sim, { inc: "incident" }));
    await pollUntil(plain, (r) => r.length >= 5);
    const before = sim.journal.entries().filter((e) => e.table === "sys_audit").length;
    sim.table("incident").delete(sim.table("incident").sysIds()[0]);
    await pollUntilQuiet(plain);
    assertEquals(plain.records.filter((r) => r.value === null), []);
    assertEquals(sim.journal.entries().filter((e) => e.table === "sys_audit").length, before);
    plain.context.abort();
    await plain.task.stop();
  } finally {
    await sim.stop();
  }
});

Deno.test("deletes: a failing audit stream shows as the table's last error (it holds the table back)", async () => {
  const sim = await startSim({ seed: { incident: 20 } });
  const reports: TableProgress[][] = [];
  const context = Object.assign(new TestContext(), {
    reportProgress: (tables: TableProgress[]) => void reports.push(tables),
  });
  const driven = await startTask(capture(sim), context, { progress: { reportIntervalMs: 20 } });
  try {
    await pollUntil(driven, (r) => r.length >= 20);
    sim.faults.add({ table: "sys_audit", fault: { kind: "status", status: 403 } });
    await pollUntil(driven, () => reports.at(-1)?.[0]?.last_error !== null, 200);
    const error = reports.at(-1)![0].last_error!;
    assert(error.message.includes("sys_audit") && error.message.includes("403"), error.message);
  } finally {
    context.abort();
    await driven.task.stop();
    await sim.stop();
  }
});
