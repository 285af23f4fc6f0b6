/**
 * A sink write answered HTTP 202 with an empty body (the instance's session had too many waiting and did not do
 * it) through the real daemon: the write is sent again, never counted as written, and the row is written exactly
 * as once, for single requests and for the Batch API (the whole batch answered 202, or one item of it).
 */
import { SCHEMALESS_JSON, sinkConnectorConfig } from "../support/sink_connector.ts";
import { assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { produceWithKcat, readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Sink-NotDone-5";

Deno.test("a sink write answered 202 is sent again and the row written once, single and batched", async () => {
  const sim = await startSimulator({ seed: { incident: 3, problem: 3 }, users: [`admin:${PASSWORD}`] });
  const accepted = { kind: "accepted" as const };
  sim.faults.add({ route: "POST /api/now/table/incident", fault: accepted, times: 1 });
  sim.faults.add({ route: "PATCH /api/now/table/incident/{sys_id}", fault: accepted, times: 1 });
  sim.faults.add({ route: "POST /api/now/batch", fault: accepted, times: 1 });
  sim.faults.add({ route: "POST /api/now/table/problem", fault: accepted, times: 1 });
  await using kafka = await startKafkaBroker();
  for (const t of ["nd.single", "nd.batch", "nd.ok"]) await kafka.createTopic(t, 1);
  const reporter = {
    "svc.sink.reporter.bootstrap.servers": kafka.bootstrapServers,
    "svc.sink.reporter.success.topic": "nd.ok",
  };
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [
      {
        name: "single",
        config: sinkConnectorConfig(sim.url, PASSWORD, {
          topics: "nd.single",
          ...SCHEMALESS_JSON,
          ...reporter,
        }),
      },
      {
        name: "batch",
        config: sinkConnectorConfig(sim.url, PASSWORD, {
          topics: "nd.batch",
          "svc.sink.table": "problem",
          ...SCHEMALESS_JSON,
          ...reporter,
          "svc.sink.batch.enabled": true,
        }),
      },
    ],
  });
  const incident = sim.table("incident");
  const problem = sim.table("problem");
  const [a] = incident.sysIds();
  const [p] = problem.sysIds();
  try {
    await produceWithKcat(kafka.bootstrapServers, "nd.single", [
      `\t{"short_description":"made once single"}`,
      `${a}\t{"short_description":"patched after 202"}`,
    ], true);
    await produceWithKcat(kafka.bootstrapServers, "nd.batch", [
      `\t{"short_description":"made once batch"}`,
      `${p}\t{"short_description":"patched after 202"}`,
    ], true);
    const reports = await waitFor(
      async () => {
        const r = await readTopicWithKcat(kafka.bootstrapServers, "nd.ok");
        return r.length >= 4 ? r : null;
      },
      60_000,
      "four success reports",
    );
    const made = (table: typeof incident, text: string) =>
      table.sysIds().filter((id) => table.get(id)!.short_description === text).length;
    assertEquals(made(incident, "made once single"), 1, daemon.output().slice(-3000));
    assertEquals(made(problem, "made once batch"), 1);
    assertEquals(incident.get(a)!.short_description, "patched after 202");
    assertEquals(problem.get(p)!.short_description, "patched after 202");
    // Each record reported written once, only after the write that was done.
    const sources = reports.map((r) => JSON.parse(r.value!).source);
    assertEquals(sources.length, 4, JSON.stringify(sources));
    assertEquals(new Set(sources.map((s) => `${s.topic}/${s.offset}`)).size, 4);
    // Every fault fired: the writes met a 202 and were sent again.
    const statuses = (route: string) => sim.journal.find({ route }).map((e) => e.status);
    assertEquals(statuses("POST /api/now/table/incident"), [202, 201]);
    assertEquals(statuses("PATCH /api/now/table/incident/{sys_id}"), [202, 200]);
    assertEquals(statuses("POST /api/now/batch").slice(0, 2), [202, 200]);
    assertEquals(statuses("POST /api/now/table/problem"), [202, 201]);
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0, daemon.output().slice(-3000));
  }
});
