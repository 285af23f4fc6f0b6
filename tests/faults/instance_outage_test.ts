/**
 * The instance away for minutes under a running daemon, a backfill and a writer changing rows in flight: refusing
 * connections (its listener closed, then opened again on the same port with the same tables), answering 503, and
 * answering an HTML maintenance page with 200 or with 503; and a sink whose instance refuses every write as long.
 *
 * Every fault runs at once on its own simulator (FAULT_SECONDS long, 120 by default, so that every backoff reaches
 * its ceiling; docs/testing.md tells how to run the long version): one daemon at-least-once reads all four, a
 * second one exactly-once reads two of them into topics of its own. Asserted: no row lost, no duplicate in
 * exactly-once, tasks RUNNING throughout with the outage shown in their status, one warning line per outage and
 * table (not one per retry), RSS bounded, the sink's requests paced (no busy loop) and nothing of it committed
 * past what was written. Each fault prints its figures in one `FAULT-FIGURES` line.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { produceRecords } from "../support/kafka_helpers.ts";
import { type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { sleep, waitFor } from "../support/wait.ts";
import { describeVerdict, exactlyOnceVerdict } from "../support/exactly_once_check.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { sinkConnectorConfig } from "../support/sink_connector.ts";
import { cpuSeconds } from "../support/process_stats.ts";
import { type Simulator, startSimulator } from "../../src/sim/mod.ts";
import {
  type Arrival,
  collectArrivals,
  duplicateCount,
  faultSeconds,
  lineCount,
  linesSince,
  missingFinalVersions,
  printFigures,
  watchDaemon,
} from "./_helpers.ts";

const PASSWORD = "pw-Outage-Heron-5";
const ROWS = 20_000;
const WRITES_PER_SECOND = 20;
/** Peak RSS allowed while the instance is away: generous (the daemon idles near 200 MiB), but not unbounded. */
const RSS_LIMIT_MIB = 1024;
/** errors.retry.timeout of the bounded readers: well inside the fault, so their tasks fail and come back. */
const BOUNDED_RETRY_MS = 15_000;

interface Fault {
  name: string;
  sim: Simulator;
  begin(): Promise<void>;
  end(): Promise<void>;
}

function statusFault(
  name: string,
  sim: Simulator,
  fault: Parameters<Simulator["faults"]["add"]>[0]["fault"],
) {
  let id = "";
  return {
    name,
    sim,
    begin: () => Promise.resolve(void (id = sim.faults.add({ fault }))),
    end: () => Promise.resolve(void sim.faults.remove(id)),
  };
}

function startSim(rows = ROWS): Promise<Simulator> {
  return startSimulator({ port: 0, seed: { incident: rows }, users: [`admin:${PASSWORD}`] });
}

/** Warning and error lines of one connector (its own, and the runtime's about its task). */
function linesOf(lines: string[], connector: string): string[] {
  return lines.filter((l) => l.includes(`"${connector}"`) || l.includes(`${connector}-0`));
}

const SOURCE_EXTRA = {
  "svc.table.incident.fields": "sys_id,sys_updated_on,number,state,sys_mod_count",
  "svc.source.batch.size": 1000,
  "svc.source.poll.interval.ms": 500,
  "svc.source.startup.probe": false,
};

Deno.test("the instance refusing connections, answering 503 or a maintenance page for minutes: nothing lost, tasks stay RUNNING", async () => {
  const seconds = faultSeconds();
  await using kafka = await startKafkaBroker();
  const sims = await Promise.all([startSim(), startSim(), startSim(), startSim(), startSim(0)]);
  const [refused, http503, html200, html503, sinkSim] = sims;
  const faults: Fault[] = [
    {
      name: "refused",
      sim: refused,
      begin: () => refused.offline(),
      end: () => refused.online(),
    },
    statusFault("http503", http503, { kind: "status", status: 503 }),
    statusFault("html200", html200, { kind: "maintenance_page", status: 200 }),
    statusFault("html503", html503, { kind: "maintenance_page", status: 503 }),
  ];
  // Read at-least-once (alo), exactly-once (eos), and at-least-once with errors.retry.timeout bounding the retries.
  const modesOf = (fault: string) => [
    "alo",
    ...(["refused", "html200"].includes(fault) ? ["eos"] : []),
    ...(["refused", "http503"].includes(fault) ? ["bounded"] : []),
  ];
  const run = uniqueName("outage");
  const topicOf = (fault: string, mode: string) => `${run}.${mode}.${fault}`;
  for (const f of faults) {
    for (const mode of modesOf(f.name)) await kafka.createTopic(topicOf(f.name, mode), 4);
  }
  // The sink: 300 keys at three versions now, 300 more keys produced while its instance refuses writes.
  const sinkTopic = `${run}.sink`;
  await kafka.createTopic(sinkTopic, 4);
  const sinkKeys = Array.from({ length: 600 }, (_, i) => i.toString(16).padStart(32, "0"));
  const produce = (keys: string[], version: number) =>
    produceRecords(
      kafka.bootstrapServers,
      sinkTopic,
      keys.map((k) => ({ key: k, value: JSON.stringify({ short_description: `${k} v${version}` }) })),
    );
  for (let v = 1; v <= 3; v++) await produce(sinkKeys.slice(0, 300), v);

  const arrivals = new Map<string, Arrival[]>();
  const readers = [];
  for (const f of faults) {
    for (const mode of modesOf(f.name)) {
      const seen: Arrival[] = [];
      arrivals.set(topicOf(f.name, mode), seen);
      readers.push(await collectArrivals(kafka.bootstrapServers, topicOf(f.name, mode), seen));
    }
  }
  const worker = { "bootstrap.servers": kafka.bootstrapServers, "offset.flush.interval.ms": 500 };
  const alo = await startDaemonProcess({
    worker,
    connectors: [
      ...faults.map((f) => ({
        name: `alo-${f.name}`,
        config: sourceConnectorConfig(
          f.sim.url,
          PASSWORD,
          { incident: topicOf(f.name, "alo") },
          SOURCE_EXTRA,
        ),
      })),
      ...faults.filter((f) => modesOf(f.name).includes("bounded")).map((f) => ({
        name: `bounded-${f.name}`,
        config: sourceConnectorConfig(f.sim.url, PASSWORD, { incident: topicOf(f.name, "bounded") }, {
          ...SOURCE_EXTRA,
          "errors.retry.timeout": BOUNDED_RETRY_MS,
          "errors.retry.delay.max.ms": 5000,
        }),
      })),
      {
        name: "sink",
        config: sinkConnectorConfig(sinkSim.url, PASSWORD, {
          topics: sinkTopic,
          "svc.sink.not.found.behavior": "create",
          "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        }),
      },
    ],
  });
  const eos = await startDaemonProcess({
    worker: {
      ...worker,
      "exactly.once.source.support": "enabled",
      "offset.storage.topic": `${run}.offsets`,
      "offset.storage.partitions": 3,
      "offset.storage.replication.factor": 1,
    },
    connectors: faults.filter((f) => modesOf(f.name).includes("eos")).map((f) => ({
      name: `eos-${f.name}`,
      config: sourceConnectorConfig(f.sim.url, PASSWORD, { incident: topicOf(f.name, "eos") }, {
        ...SOURCE_EXTRA,
        "exactly.once.support": "required",
      }),
    })),
  });
  const daemons: [string, DaemonProcess][] = [["at-least-once", alo], ["exactly-once", eos]];
  const sinkTable = sinkSim.table("incident");
  try {
    for (const f of faults) f.sim.writer.start({ rowsPerSecond: WRITES_PER_SECOND, insertRatio: 0.3 });
    // The fault lands in the middle of the backfill: a tenth of the rows on every topic, the sink under way.
    await waitFor(
      () => [...arrivals.values()].every((a) => a.length >= ROWS / 10) && sinkTable.count > 0,
      120_000,
      "backfills and sink writes under way",
    );
    const marks = daemons.map(([, d]) => lineCount(d));
    const watches = daemons.map(([, d]) => watchDaemon(d, connectorNames(d)));
    const cpuBefore = cpuSeconds(alo.process.pid);
    // The sink's instance refuses every write (503); reads still work, so what a write depends on is the write.
    const sinkFault = sinkSim.faults.add({ method: "POST", fault: { kind: "status", status: 503 } });
    const sinkFaultPut = sinkSim.faults.add({ method: "PUT", fault: { kind: "status", status: 503 } });
    const sinkFaultPatch = sinkSim.faults.add({ method: "PATCH", fault: { kind: "status", status: 503 } });
    const sinkCountAtFault = sinkTable.count;
    await Promise.all(faults.map((f) => f.begin()));
    const sinkRequestsAtFault = sinkSim.counters.requests;
    await produce(sinkKeys.slice(300), 1);
    await sleep(seconds * 1000);
    const sinkRequests = sinkSim.counters.requests - sinkRequestsAtFault;
    const sinkWrittenDuringFault = sinkTable.count - sinkCountAtFault;
    const sinkOffsets = await alo.request("GET", "/connectors/sink/offsets");
    const cpuDuring = cpuSeconds(alo.process.pid) - cpuBefore;
    // Cleared: each topic's first record after this instant measures the recovery.
    for (const id of [sinkFault, sinkFaultPut, sinkFaultPatch]) sinkSim.faults.remove(id);
    await Promise.all(faults.map((f) => f.end()));
    const cleared = Date.now();
    const sinkCountAtClear = sinkTable.count;
    const sinkResumed = waitFor(
      () => sinkTable.count > sinkCountAtClear,
      120_000,
      "a sink write after the fault",
    )
      .then(() => Date.now() - cleared);
    await Promise.all(watches.map((w) => w.stop()));
    // The writers go on a little after the fault, then stop so that every final version can be checked.
    await sleep(10_000);
    for (const f of faults) f.sim.writer.stop();
    const faultLines = daemons.map(([, d], i) => linesSince(d, marks[i], ""));

    for (const f of faults) {
      for (const mode of modesOf(f.name)) {
        const topic = topicOf(f.name, mode);
        const seen = arrivals.get(topic)!;
        const table = f.sim.table("incident");
        const missing = () => missingFinalVersions(table, seen);
        await waitFor(() => missing().length === 0, 180_000, `every final row version on ${topic}`).catch(
          (e) => {
            const own = alo.output().split("\n").filter((l) =>
              l.includes(`"${mode}-${f.name}"`) || l.includes(`${mode}-${f.name}-0`)
            );
            throw new Error(
              `${e.message}: ${missing().length} missing; its log lines:\n${
                own.slice(-20).join("\n").slice(-6000)
              }`,
            );
          },
        );
        let duplicates = duplicateCount(seen);
        const which = mode === "eos" ? 1 : 0;
        const [modeName, daemon] = daemons[which];
        const connector = `${mode}-${f.name}`;
        if (mode === "eos") {
          const verdict = await exactlyOnceVerdict(kafka.bootstrapServers, topic, table, new Set());
          assertEquals(verdict.duplicates.length + verdict.missing.length, 0, describeVerdict(verdict));
          duplicates = verdict.duplicates.length;
        }
        const first = seen.find((s) => s.at > cleared);
        const states = [...watches[which].states.get(connector)!];
        const warnings = [...watches[which].warnings.get(connector)!];
        const logLines = linesOf(faultLines[which], connector);
        const traces = [...watches[which].traces.get(connector)!];
        printFigures({
          fault: f.name,
          mode: modeName as "at-least-once" | "exactly-once",
          faultSeconds: seconds,
          rows: table.count,
          lost: missing().length,
          duplicates,
          firstRecordAfterClearMs: first ? first.at - cleared : null,
          states,
          peakRssMiB: Math.round(watches[which].peakRssKiB / 1024),
          logLines: logLines.length,
          ...(mode === "bounded" ? { errorsRetryTimeoutMs: BOUNDED_RETRY_MS, trace: traces[0] ?? null } : {}),
          warning: warnings[0] ?? null,
        });
        assert(warnings.length > 0, `${connector}: the outage shows in the task's status`);
        assert(
          !logLines.some((l) => l.includes("    at ")),
          `${connector}: a stack trace in the log:\n${logLines}`,
        );
        if (mode === "bounded") {
          // Past errors.retry.timeout the task fails with one line naming the fault, and comes back by itself.
          assert(
            states.includes("FAILED"),
            `${connector}: never FAILED past errors.retry.timeout: ${states}`,
          );
          assert(traces.every((t) => t.includes("errors.retry.timeout")), `${connector}: traces ${traces}`);
          const restarts = daemon.output().split("\n").filter((l) =>
            l.includes(`task ${connector}-0 failed on a transient fault`)
          ).length;
          assert(restarts > 0, `${connector}: the daemon did not restart the task`);
          // Per failure: the table's warning and the task's failure line, nothing per retry.
          assert(
            logLines.length <= 2 * restarts + 1,
            `${connector}: ${logLines.length} lines:\n${logLines.join("\n")}`,
          );
          const status = await waitFor(
            async () => {
              const s = await daemon.request("GET", `/connectors/${connector}/status`);
              return s.body?.tasks?.[0]?.state === "RUNNING" && s.body;
            },
            60_000,
            `${connector} RUNNING again`,
          );
          assertEquals(status.tasks[0].state, "RUNNING");
        } else {
          assertEquals(states, ["RUNNING"], `${connector}: the task stays RUNNING through the outage`);
          // One line when the outage starts (and none per retry); its end is an info line.
          assert(
            logLines.length <= 1,
            `${connector}: ${logLines.length} warning lines during the outage:\n${logLines.join("\n")}`,
          );
        }
      }
    }
    for (const [name, d] of daemons) {
      const peak = watches[daemons.findIndex(([n]) => n === name)].peakRssKiB / 1024;
      assert(peak < RSS_LIMIT_MIB, `${name}: peak RSS ${Math.round(peak)} MiB while the instance was away`);
      void d;
    }

    // The sink: nothing written nor committed past what was written, paced retries, everything after recovery.
    await waitFor(
      () => sinkKeys.every((k, i) => sinkTable.get(k)?.short_description === `${k} v${i < 300 ? 3 : 1}`),
      180_000,
      "every sink record written after the instance took writes again",
    ).catch((e) => {
      const written = sinkKeys.filter((k, i) =>
        sinkTable.get(k)?.short_description === `${k} v${i < 300 ? 3 : 1}`
      );
      const sinkLog = alo.output().split("\n").filter((l) => l.includes('"sink"') || l.includes("sink-0"));
      throw new Error(
        `${e.message}: ${written.length} of ${sinkKeys.length} written; ${sinkLog.slice(-15).join("\n")}`,
      );
    });
    const committed = (sinkOffsets.body?.offsets ?? []).reduce(
      (n: number, o: { offset: { kafka_offset: number } }) => n + o.offset.kafka_offset,
      0,
    );
    const sinkLines = linesOf(faultLines[0], "sink");
    printFigures({
      fault: "sink-writes-refused",
      mode: "at-least-once",
      faultSeconds: seconds,
      rows: sinkTable.count,
      lost: sinkKeys.filter((k) => !sinkTable.get(k)).length,
      duplicates: sinkTable.count - sinkKeys.length,
      firstRecordAfterClearMs: await sinkResumed,
      states: [...watches[0].states.get("sink")!],
      peakRssMiB: Math.round(watches[0].peakRssKiB / 1024),
      logLines: sinkLines.length,
      requestsPerSecondDuringFault: Math.round(sinkRequests / seconds * 10) / 10,
      daemonCpuSecondsDuringFault: Math.round(cpuDuring * 10) / 10,
      committedOffsetsDuringFault: committed,
      writtenDuringFault: sinkWrittenDuringFault,
    });
    assertEquals(sinkWrittenDuringFault, 0, "no write got through the refusing instance");
    assertEquals(sinkTable.count, sinkKeys.length, "every key once: no row created twice");
    assertEquals([...watches[0].states.get("sink")!], ["RUNNING"], "the sink task stays RUNNING");
    // Paced: a busy loop would send hundreds of requests a second.
    assert(
      sinkRequests / seconds < 50,
      `${sinkRequests} requests in ${seconds} s: the sink retries in a busy loop`,
    );
    assert(
      sinkLines.length <= 2,
      `sink: ${sinkLines.length} warning lines during the outage:\n${sinkLines.join("\n")}`,
    );
    // Committed during the fault: at most the 900 records of the first 300 keys, of which every one was written
    // before the fault or never got past the refusal; the 300 produced during the fault are never committed.
    assert(committed <= 900, `committed ${committed} offsets during the fault, past the records written`);
  } finally {
    for (const f of faults) f.sim.writer.stop();
    await Promise.all(daemons.map(([, d]) => d.stop("SIGTERM")));
    for (const r of readers) await r.disconnect();
    await Promise.all(sims.map((s) => s.stop()));
  }
});

/** The connectors a daemon runs, from its config file. */
function connectorNames(daemon: DaemonProcess): string[] {
  const config = JSON.parse(Deno.readTextFileSync(daemon.configPath));
  return config.connectors.map((c: { name: string }) => c.name);
}
