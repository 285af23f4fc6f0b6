/**
 * The instance clock behind proxies, through the real daemon: a proxy that adds its own `Date` (two comma-joined
 * values) does not stop a table; a proxy that leaves no usable `Date` fails the task with a status trace that names
 * the table and the cause, and the stalled gauge says so, instead of backing off forever while RUNNING.
 */
import { assert, assertStringIncludes } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Clock-Proxy-58";

function connector(url: string, table: string) {
  return {
    "connector.class": "TableSourceConnector",
    "svc.url": url,
    "svc.auth.username": "admin",
    "svc.auth.password": PASSWORD,
    "svc.tables": table,
    [`svc.table.${table}.name`]: table,
    [`svc.table.${table}.topic`]: `clock.${table}`,
    "svc.source.poll.interval.ms": 300,
  };
}

Deno.test("a doubled Date header (proxy) is read; a Date no value of which parses fails the task with its cause", async () => {
  const sim = await startSimulator({
    port: 0,
    seed: { incident: 500, problem: 50 },
    users: [`admin:${PASSWORD}`],
  });
  sim.faults.add({ table: "incident", fault: { kind: "double_date", proxySkewSeconds: 3600 } });
  sim.faults.add({ table: "problem", fault: { kind: "double_date", garbled: "only" } });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("clock.incident", 2);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [
      { name: "proxied", config: connector(sim.url, "incident") },
      { name: "broken", config: connector(sim.url, "problem") },
    ],
  });
  try {
    const records = await consumeAll(kafka.bootstrapServers, "clock.incident", {
      expected: 500,
      timeoutMs: 60_000,
    });
    assert(
      records.length === 500 && new Set(records.map((r) => r.key)).size === 500,
      daemon.output().slice(-2000),
    );

    const failed = await waitFor(
      async () => {
        const status = (await daemon.request("GET", "/connectors/broken/status")).body;
        return status?.tasks?.[0]?.state === "FAILED" ? status.tasks[0] : null;
      },
      30_000,
      "the broken connector's task FAILED",
    );
    assertStringIncludes(failed.trace, "table problem (alias problem) cannot progress (instance_clock)");
    assertStringIncludes(failed.trace, "no value of the response's Date header is an HTTP date");
    const proxied = (await daemon.request("GET", "/connectors/proxied/status")).body;
    assert(proxied.tasks[0].state === "RUNNING", JSON.stringify(proxied));
    const metrics = await waitFor(
      async () => {
        const text = (await daemon.request("GET", "/metrics")).body as string;
        return text.includes("tablesync_source_table_stalled{") ? text : null;
      },
      20_000,
      "the stalled gauge",
    );
    assert(
      metrics.split("\n").some((l) =>
        l.startsWith("tablesync_source_table_stalled{") && l.includes('table="problem"') &&
        l.includes('cause="instance_clock"') && l.endsWith(" 1")
      ),
      metrics,
    );
  } finally {
    await daemon.stop("SIGTERM");
    await sim.stop();
  }
});
