/**
 * Kafka Connect's REST API on the real daemon: a connector created with POST /connectors runs, pauses,
 * resumes, stops, reports and alters and resets its offsets while stopped, restarts, is reconfigured and is
 * deleted, each with Connect's status code and body; validate returns ConfigInfos; REST changes survive a
 * restart; a failing task is FAILED with a trace while the daemon keeps serving, and restart brings it back.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Lifecycle-Heron-88";

/** The connector's config as the REST API answers it back: every value a string. */
function sourceConfig(simUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  const config = sourceConnectorConfig(simUrl, PASSWORD, { incident: "life.incident" }, {
    "svc.source.poll.interval.ms": "300",
    ...extra,
  });
  return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, String(v)]));
}

Deno.test("REST lifecycle of a source connector, with Connect's codes and bodies", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 500 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("life.incident", 2);
  let daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [],
  });
  const dir = daemon.dir;
  try {
    // validate: good and bad configs in ConfigInfos shape.
    const good = await daemon.request("PUT", "/connector-plugins/TableSourceConnector/config/validate", {
      name: "life",
      ...sourceConfig(sim.url),
    });
    assertEquals(good.status, 200);
    assertEquals(good.body.name, "io.tablesync.TableSourceConnector");
    assertEquals(good.body.error_count, 0);
    assert(good.body.groups.includes("Table: incident"), JSON.stringify(good.body.groups));
    const pw = good.body.configs.find((c: any) => c.value.name === "svc.auth.password");
    assertEquals(pw.value.value, "[hidden]");
    assertEquals(pw.definition.type, "PASSWORD");
    const bad = await daemon.request(
      "PUT",
      "/connector-plugins/TableSourceConnector/config/validate",
      { name: "life", ...sourceConfig(sim.url, { "svc.table.incident.query": "active=true^ORDERBYnumber" }) },
    );
    assertEquals(bad.body.error_count, 1);
    const badQuery = bad.body.configs.find((c: any) => c.value.name === "svc.table.incident.query");
    assertStringIncludes(badQuery.value.errors[0], "ORDERBY");
    const mismatch = await daemon.request(
      "PUT",
      "/connector-plugins/TableSinkConnector/config/validate",
      sourceConfig(sim.url),
    );
    assertEquals(mismatch.status, 400);

    // create
    const created = await daemon.request("POST", "/connectors", {
      name: "life",
      config: sourceConfig(sim.url),
    });
    assertEquals(created.status, 201);
    assertEquals(created.headers.get("location"), "/connectors/life");
    assertEquals(created.body.name, "life");
    assertEquals(created.body.type, "source");
    assertEquals(created.body.tasks, [{ connector: "life", task: 0 }]);
    assertEquals(
      (await daemon.request("POST", "/connectors", { name: "life", config: sourceConfig(sim.url) })).status,
      409,
    );
    const invalid = await daemon.request("POST", "/connectors", {
      name: "broken",
      config: sourceConfig(sim.url, { "svc.source.batch.size": "0" }),
    });
    assertEquals(invalid.status, 400);
    assertStringIncludes(invalid.body.message, "contains the following 1 error(s)");
    assertEquals(invalid.body.error_code, 400);

    await waitFor(
      async () => (await daemon.request("GET", "/connectors/life/status")).body.tasks[0]?.state === "RUNNING",
      20_000,
      "RUNNING",
    );
    const expanded = await daemon.request("GET", "/connectors?expand=status&expand=info");
    assertEquals(expanded.body.life.status.connector.state, "RUNNING");
    assertEquals(expanded.body.life.info.name, "life");
    assertEquals((await daemon.request("GET", "/connectors/life/tasks")).body[0].id, {
      connector: "life",
      task: 0,
    });
    assertEquals((await daemon.request("GET", "/connectors/life/tasks/0/status")).body.state, "RUNNING");
    assertEquals(
      (await daemon.request("GET", "/connectors/life/config")).body["svc.auth.password"],
      "[hidden]",
    );

    // pause / resume
    assertEquals((await daemon.request("PUT", "/connectors/life/pause")).status, 202);
    await waitFor(
      async () => (await daemon.request("GET", "/connectors/life/status")).body.tasks[0]?.state === "PAUSED",
      10_000,
      "PAUSED",
    );
    assertEquals((await daemon.request("GET", "/connectors/life/status")).body.connector.state, "PAUSED");
    assertEquals((await daemon.request("PUT", "/connectors/life/resume")).status, 202);
    await waitFor(
      async () => (await daemon.request("GET", "/connectors/life/status")).body.tasks[0]?.state === "RUNNING",
      10_000,
      "RUNNING again",
    );

    // offsets are committed; altering needs STOPPED
    const offsets = await waitFor(
      async () => {
        const o = (await daemon.request("GET", "/connectors/life/offsets")).body.offsets;
        return o.length > 0 ? o : null;
      },
      20_000,
      "offsets",
    );
    const early = await daemon.request("PATCH", "/connectors/life/offsets", { offsets });
    assertEquals(early.status, 400);
    assertStringIncludes(early.body.message, "STOPPED state");

    // stop → alter → reset
    assertEquals((await daemon.request("PUT", "/connectors/life/stop")).status, 204);
    const stopped = await daemon.request("GET", "/connectors/life/status");
    assertEquals(stopped.body.connector.state, "STOPPED");
    assertEquals(stopped.body.tasks, []);
    const altered = {
      partition: offsets[0].partition,
      offset: { ...offsets[0].offset, sys_id: "0".repeat(32) },
    };
    const patch = await daemon.request("PATCH", "/connectors/life/offsets", { offsets: [altered] });
    assertEquals(patch.status, 200);
    assertEquals(patch.body, { message: "The offsets for this connector have been altered successfully" });
    assertEquals((await daemon.request("GET", "/connectors/life/offsets")).body.offsets, [altered]);
    const empty = await daemon.request("PATCH", "/connectors/life/offsets", { offsets: [] });
    assertEquals(empty.status, 400);
    const reset = await daemon.request("DELETE", "/connectors/life/offsets");
    assertEquals(reset.body, { message: "The offsets for this connector have been reset successfully" });
    assertEquals((await daemon.request("GET", "/connectors/life/offsets")).body.offsets, []);

    // restart the daemon: the connector created over REST is back, still STOPPED
    assertEquals((await daemon.stop("SIGTERM")).code, 0);
    daemon = await startDaemonProcess({
      worker: { "bootstrap.servers": kafka.bootstrapServers },
      connectors: [],
    }, { dir });
    assertEquals((await daemon.request("GET", "/connectors")).body, ["life"]);
    assertEquals((await daemon.request("GET", "/connectors/life/status")).body.connector.state, "STOPPED");

    // resume from STOPPED starts tasks again; restart with includeTasks answers 202
    assertEquals((await daemon.request("PUT", "/connectors/life/resume")).status, 202);
    await waitFor(
      async () => (await daemon.request("GET", "/connectors/life/status")).body.tasks[0]?.state === "RUNNING",
      20_000,
      "RUNNING after resume",
    );
    assertEquals((await daemon.request("POST", "/connectors/life/restart")).status, 204);
    const restarted = await daemon.request("POST", "/connectors/life/restart?includeTasks=true");
    assertEquals(restarted.status, 202);
    assertEquals(restarted.body.name, "life");
    assertEquals((await daemon.request("POST", "/connectors/life/tasks/0/restart")).status, 204);
    assertEquals((await daemon.request("POST", "/connectors/life/tasks/7/restart")).status, 404);

    // reconfigure with PUT and PATCH
    const put = await daemon.request(
      "PUT",
      "/connectors/life/config",
      sourceConfig(sim.url, { "svc.source.batch.size": "250" }),
    );
    assertEquals(put.status, 200);
    assertEquals(put.body.config["svc.source.batch.size"], "250");
    const patched = await daemon.request("PATCH", "/connectors/life/config", {
      "svc.source.batch.size": null,
    });
    assertEquals(patched.status, 200);
    assertEquals(patched.body.config["svc.source.batch.size"], undefined);

    // delete
    assertEquals((await daemon.request("DELETE", "/connectors/life")).status, 204);
    assertEquals((await daemon.request("GET", "/connectors/life")).status, 404);
    assertEquals((await daemon.request("GET", "/connectors")).body, []);

    // plugins
    const plugins = await daemon.request("GET", "/connector-plugins");
    assertEquals(plugins.body.map((p: any) => p.class).sort(), [
      "io.tablesync.TableSinkConnector",
      "io.tablesync.TableSourceConnector",
    ]);
    const defs = await daemon.request("GET", "/connector-plugins/TableSourceConnector/config");
    assert(
      defs.body.some((d: any) => d.name === "svc.tables" && d.required === true),
      "svc.tables definition",
    );
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0, daemon.output().slice(-2000));
  }
});

Deno.test("a failing task is FAILED with a trace while the daemon keeps serving; restart brings it back", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 50 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("fail.incident", 1);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [
      // The integration user does not exist yet: the startup probe's read is refused and the task fails.
      {
        name: "bad",
        config: {
          ...sourceConfig(sim.url),
          "svc.auth.username": "late_user",
          "svc.table.incident.topic": "fail.incident",
        },
      },
      { name: "good", config: { ...sourceConfig(sim.url), "svc.table.incident.topic": "fail.incident" } },
      // A mistyped class in the file: FAILED with the validation errors, type "unknown"; the API keeps working.
      {
        name: "typo",
        config: { ...sourceConfig(sim.url), "connector.class": "io.tablesync.TableSourceConector" },
      },
    ],
  });
  try {
    const failed = await waitFor(
      async () => {
        const s = (await daemon.request("GET", "/connectors/bad/status")).body;
        return s.tasks[0]?.state === "FAILED" ? s : null;
      },
      20_000,
      "bad task FAILED",
    );
    assertStringIncludes(failed.tasks[0].trace, "incident");
    assertStringIncludes(failed.tasks[0].trace, "401");
    await waitFor(
      async () => (await daemon.request("GET", "/connectors/good/status")).body.tasks[0]?.state === "RUNNING",
      20_000,
      "good RUNNING",
    );
    const typo = (await daemon.request("GET", "/connectors/typo/status")).body;
    assertEquals(typo.connector.state, "FAILED");
    assertEquals(typo.type, "unknown");
    assertStringIncludes(typo.connector.trace, "TableSourceConector");
    assertEquals((await daemon.request("GET", "/metrics")).status, 200);
    assertEquals((await daemon.request("GET", "/connectors?expand=status")).status, 200);
    assertEquals((await daemon.request("GET", "/")).status, 200);

    // Fix the cause (the user is created), restart only failed tasks: the task comes back.
    sim.users.add(`late_user:${PASSWORD}`);
    const restart = await daemon.request("POST", "/connectors/bad/restart?includeTasks=true&onlyFailed=true");
    assertEquals(restart.status, 202);
    await waitFor(
      async () => (await daemon.request("GET", "/connectors/bad/status")).body.tasks[0]?.state === "RUNNING",
      20_000,
      "bad task RUNNING after restart",
    );
    assert(!daemon.output().includes(PASSWORD), "password in output");
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0);
  }
});

Deno.test("commands racing on one connector leave no orphan task; a pause right after create is honoured", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 100 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("race.incident", 1);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [],
  });
  try {
    // Pause straight after create, while the task thread is still starting.
    assertEquals(
      (await daemon.request("POST", "/connectors", {
        name: "race",
        config: sourceConfig(sim.url, { "svc.table.incident.topic": "race.incident" }),
      })).status,
      201,
    );
    assertEquals((await daemon.request("PUT", "/connectors/race/pause")).status, 202);
    await waitFor(
      async () => (await daemon.request("GET", "/connectors/race/status")).body.tasks[0]?.state === "PAUSED",
      20_000,
      "PAUSED",
    );
    assertEquals((await daemon.request("PUT", "/connectors/race/resume")).status, 202);
    await waitFor(
      async () => (await daemon.request("GET", "/connectors/race/status")).body.tasks[0]?.state === "RUNNING",
      20_000,
      "RUNNING",
    );
    // Two restarts and a stop at once: they run one after another, and once stopped no task polls anymore.
    const results = await Promise.all([
      daemon.request("POST", "/connectors/race/restart?includeTasks=true"),
      daemon.request("POST", "/connectors/race/restart?includeTasks=true"),
      daemon.request("PUT", "/connectors/race/stop"),
    ]);
    assertEquals(results.map((r) => r.status), [202, 202, 204]);
    assertEquals((await daemon.request("GET", "/connectors/race/status")).body.tasks, []);
    await new Promise((r) => setTimeout(r, 500));
    const before = sim.journal.entries().length;
    await new Promise((r) => setTimeout(r, 2000));
    assertEquals(sim.journal.entries().length, before, "a task still polls the instance after stop");
    assertEquals((await daemon.request("DELETE", "/connectors/race")).status, 204);
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0);
  }
});
