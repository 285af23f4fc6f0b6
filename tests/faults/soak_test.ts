/**
 * A soak with churn: a worker group runs SOAK_SECONDS (180 by default, so that CI covers it in three minutes; an
 * hour for the soak mode, docs/testing.md) while, every few seconds over REST, connectors are created,
 * reconfigured, paused, resumed and deleted, tables change under a writer, and a second member joins and leaves
 * the group again and again. A long-lived source reads a table that changes all along.
 *
 * Asserted: every connector's rows arrived (each churned connector's before it is deleted, the long-lived one's
 * at the end), and the first member's resident memory, main-thread heap and open file descriptors at the end are
 * within a margin of their level after the warm-up (a quarter of the run). Timers cannot be counted from outside
 * the process (Deno has no such API); a leaked interval would show as CPU time at rest, printed with the rest.
 */
import { assert } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { sleep, waitFor } from "../support/wait.ts";
import { groupWorker } from "../support/group_handover.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { parseExposition, sumOf } from "../support/prometheus.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { type Arrival, collectArrivals, missingFinalVersions } from "./_helpers.ts";
import { cpuSeconds } from "../support/process_stats.ts";

const PASSWORD = "pw-Soak-Churn-Ibis-3";

function soakSeconds(): number {
  const raw = Deno.env.get("SOAK_SECONDS");
  const n = raw === undefined ? 180 : Number(raw);
  if (!(n >= 60)) throw new Error(`SOAK_SECONDS must be at least 60, not ${raw}`);
  return n;
}

interface Levels {
  rssMiB: number;
  heapMiB: number;
  fds: number;
}

async function levels(daemon: DaemonProcess): Promise<Levels> {
  const metrics = parseExposition((await daemon.request("GET", "/metrics")).body as string);
  const mib = (name: string) => Math.round(sumOf(metrics, name) / 1024 / 1024 * 10) / 10;
  return {
    rssMiB: mib("process_resident_memory_bytes"),
    heapMiB: mib("tablesync_heap_used_bytes"),
    fds: sumOf(metrics, "process_open_fds"),
  };
}

Deno.test("soak with churn: connectors created, changed, paused, resumed and deleted, a member joining and leaving; no leak", async () => {
  const seconds = soakSeconds();
  await using kafka = await startKafkaBroker();
  const sim = await startSimulator({
    port: 0,
    seed: { incident: 2000, problem: 200 },
    users: [`admin:${PASSWORD}`],
  });
  const prefix = uniqueName("soak");
  const worker = groupWorker(kafka.bootstrapServers, prefix);
  const stableTopic = `${prefix}.stable`;
  await kafka.createTopic(stableTopic, 2);
  const stableSeen: Arrival[] = [];
  const readers = [await collectArrivals(kafka.bootstrapServers, stableTopic, stableSeen)];
  const extra = { "svc.source.poll.interval.ms": 500, "svc.source.startup.probe": false, "tasks.max": 1 };
  const a = await startDaemonProcess({
    worker,
    connectors: [{
      name: "stable",
      config: sourceConnectorConfig(sim.url, PASSWORD, { incident: stableTopic }, {
        ...extra,
        "svc.table.incident.fields": "sys_id,sys_updated_on,number,sys_mod_count",
      }),
    }],
  }, { timeoutMs: 60_000 });
  let b: DaemonProcess | null = null;
  const figures = { connectorsChurned: 0, memberJoins: 0, restCalls: 0 };
  const call = async (method: string, path: string, body?: unknown) => {
    figures.restCalls++;
    const res = await a.request(method, path, body);
    assert(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  };
  try {
    sim.writer.start({ rowsPerSecond: 10, table: "incident", insertRatio: 0.3 });
    const started = Date.now();
    const elapsed = () => (Date.now() - started) / 1000;
    let warm: Levels | null = null;
    let cpuAtWarm = 0;
    // The member: joins for a tenth of the run, leaves for a tenth, until the last fifth.
    const membership = (async () => {
      while (elapsed() < seconds * 0.8) {
        await sleep(seconds * 100);
        if (elapsed() >= seconds * 0.8) break;
        b = await startDaemonProcess({ worker, connectors: [] }, { timeoutMs: 60_000 });
        figures.memberJoins++;
        await sleep(seconds * 100);
        await b.stop("SIGTERM");
        b = null;
      }
    })();
    // The churn: one connector at a time through its whole life, on the problem table that also changes.
    while (elapsed() < seconds * 0.8) {
      if (warm === null && elapsed() >= seconds * 0.25) {
        warm = await levels(a);
        cpuAtWarm = cpuSeconds(a.process.pid);
      }
      const name = `churn-${++figures.connectorsChurned}`;
      const topic = `${prefix}.${name}`;
      await kafka.createTopic(topic, 1);
      const seen: Arrival[] = [];
      const reader = await collectArrivals(kafka.bootstrapServers, topic, seen);
      const config = sourceConnectorConfig(sim.url, PASSWORD, { problem: topic }, {
        ...extra,
        "svc.table.problem.fields": "sys_id,sys_updated_on,number,sys_mod_count",
      });
      await call("PUT", `/connectors/${name}/config`, config);
      await sleep(2000);
      await call("PUT", `/connectors/${name}/config`, { ...config, "svc.source.poll.interval.ms": 700 });
      sim.table("problem").insert({ short_description: `${name} inserted` });
      await sleep(2000);
      await call("PUT", `/connectors/${name}/pause`);
      await sleep(2000);
      await call("PUT", `/connectors/${name}/resume`);
      const table = sim.table("problem");
      await waitFor(() => missingFinalVersions(table, seen).length === 0, 60_000, `${name}: every row`);
      await call("DELETE", `/connectors/${name}`);
      await reader.disconnect();
      await kafka.deleteTopic(topic);
    }
    await membership;
    sim.writer.stop();
    const table = sim.table("incident");
    await waitFor(() => missingFinalVersions(table, stableSeen).length === 0, 120_000, "every stable row");
    // At rest: what a leak would leave behind stays; what churn used goes (collections run when tasks go quiet).
    await sleep(Math.min(30, seconds * 0.1) * 1000);
    const end = await levels(a);
    const restSeconds = 10;
    const cpuBeforeRest = cpuSeconds(a.process.pid);
    await sleep(restSeconds * 1000);
    const cpuAtRest = (cpuSeconds(a.process.pid) - cpuBeforeRest) / restSeconds;
    console.log(
      `SOAK-FIGURES ${
        JSON.stringify({
          seconds,
          ...figures,
          stableRows: table.count,
          warm,
          end,
          cpuSecondsSinceWarm: Math.round((cpuBeforeRest - cpuAtWarm) * 10) / 10,
          cpuShareAtRest: Math.round(cpuAtRest * 1000) / 1000,
        })
      }`,
    );
    assert(warm !== null, "no warm-up sample");
    assert(end.fds <= warm.fds + 10, `open fds ${warm.fds} after warm-up, ${end.fds} at the end`);
    assert(
      end.heapMiB <= warm.heapMiB * 1.25 + 10,
      `heap ${warm.heapMiB} MiB after warm-up, ${end.heapMiB} at the end`,
    );
    assert(
      end.rssMiB <= warm.rssMiB * 1.25 + 50,
      `RSS ${warm.rssMiB} MiB after warm-up, ${end.rssMiB} at the end`,
    );
  } finally {
    sim.writer.stop();
    if (b) await (b as DaemonProcess).stop("SIGTERM");
    await a.stop("SIGTERM");
    for (const r of readers) await r.disconnect();
    await sim.stop();
  }
});
