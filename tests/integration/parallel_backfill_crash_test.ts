/**
 * The real daemon backfills a table in 4 sys id ranges (`svc.source.backfill.parallelism=4`) on a real Kafka
 * broker while a writer updates rows, with 3 permits (`svc.http.max.concurrent.requests`) and 100 ms of instance
 * latency. Range 3 holds most rows, so ranges 0-2 finish first; once their done flags are committed the daemon
 * is killed (kill -9) and restarted. Afterwards: the restart never read ranges 0-2 again (simulator journal),
 * every row's final version is on the topic, each key's versions arrived in cursor order, and the simulator
 * never had more than 3 requests in flight.
 */
import { assert } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { collectTopic } from "../support/topic_collector.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { formatGlideDateTime } from "../../src/source/glide_timestamp.ts";
import { splitIdSpace } from "../../src/source/parallel_backfill.ts";

const PERMITS = 3;

interface Seen {
  key: string;
  updated: string;
  modCount: number;
}

function collect(bootstrap: string, topic: string, seen: Seen[]) {
  return collectTopic(bootstrap, topic, seen, (m) => ({
    key: m.key,
    updated: m.value.sys_updated_on as string,
    modCount: Number(m.value.sys_mod_count),
  }));
}

/** The committed offset of the table, or null. */
async function committedOffset(path: string): Promise<Record<string, unknown> | null> {
  try {
    return JSON.parse(await Deno.readTextFile(path)).rows?.[0]?.value ?? null;
  } catch {
    return null;
  }
}

Deno.test("parallel backfill: kill -9 after ranges finished, resume reads only the rest; order per key; permits kept", async () => {
  const sim = await startSimulator({
    port: 0,
    latencyMs: 100,
    seed: { incident: 1500 },
    users: ["admin:pw-Range-Owl-4"],
  });
  // 4,500 more rows in range 3 (sys ids above bfff…), spread over past seconds: the slow range.
  const incident = sim.table("incident");
  const base = Date.UTC(2025, 0, 1);
  for (let i = 0; i < 4500; i++) {
    const ts = formatGlideDateTime(base + i * 1000);
    const sysId = `f${crypto.randomUUID().replaceAll("-", "").slice(1)}`;
    incident.insert({ sys_id: sysId, sys_updated_on: ts, sys_created_on: ts, sys_mod_count: "0" }, {
      suppressAutoSysFields: true,
    });
  }
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("backfill.incident");
  await kafka.createTopic(topic, 4);
  const config = {
    worker: { "bootstrap.servers": kafka.bootstrapServers, "offset.flush.interval.ms": 200 },
    connectors: [{
      name: "backfill",
      config: {
        "connector.class": "TableSourceConnector",
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": "pw-Range-Owl-4",
        "svc.tables": "incident",
        "svc.table.incident.name": "incident",
        "svc.table.incident.topic": topic,
        "svc.table.incident.fields": "sys_id,sys_updated_on,sys_mod_count",
        "svc.table.incident.backfill.parallelism": 4,
        "svc.http.max.concurrent.requests": PERMITS,
        "svc.source.batch.size": 100,
        "svc.source.poll.interval.ms": 200,
        "svc.source.startup.probe": false,
      },
    }],
  };
  const seen: Seen[] = [];
  const consumer = await collect(kafka.bootstrapServers, topic, seen);
  const ids = splitIdSpace(4);
  /** The sys id bounds in the pages of range i. */
  const rangeQuery = (i: number) =>
    [
      ids[i].after === null ? "" : `sys_id>${ids[i].after}`,
      ids[i].atMost === null ? "" : `sys_id<=${ids[i].atMost}`,
    ]
      .filter((c) => c !== "").join("^");
  try {
    sim.counters.reset();
    sim.writer.start({ rowsPerSecond: 40, table: "incident", insertRatio: 0.2 });
    const first = await startDaemonProcess(config);
    const offsets = `${first.dir}/offsets.json`;
    let killedAt: Record<string, unknown> | null = null;
    try {
      await waitFor(
        async () => {
          const o = await committedOffset(offsets);
          const finished = o?.["backfill.0.done"] === true && o?.["backfill.1.done"] === true &&
            o?.["backfill.2.done"] === true;
          return finished && o?.["backfill.3.done"] === false;
        },
        90_000,
        "ranges 0-2 committed as done while range 3 runs",
      );
    } finally {
      await first.stop("SIGKILL");
    }
    killedAt = await committedOffset(offsets);
    assert(killedAt?.["backfill.3.done"] === false, `killed mid-backfill: ${JSON.stringify(killedAt)}`);

    sim.journal.clear();
    const second = await startDaemonProcess(config, { dir: first.dir });
    try {
      await waitFor(
        async () => {
          const o = await committedOffset(offsets);
          return o !== null && !("backfill.high" in o);
        },
        90_000,
        "the backfill handed over to the cursor",
      );
      sim.writer.stop();
      const expected = new Map(incident.sysIds().map((id) => [id, Number(incident.get(id)!.sys_mod_count)]));
      const missing = () => {
        const have = new Set(seen.map((s) => `${s.key}/${s.modCount}`));
        return [...expected].filter(([id, mod]) => !have.has(`${id}/${mod}`)).length;
      };
      await waitFor(() => missing() === 0, 60_000, "every final row version on the topic").catch((e) => {
        throw new Error(
          `${e.message}: ${missing()} of ${expected.size} missing; ${second.output().slice(-1500)}`,
        );
      });
    } finally {
      await second.stop("SIGTERM");
    }

    const pages = sim.journal.find((e) =>
      e.table === "incident" && e.params.sysparm_query?.includes("ORDERBY")
    );
    const resumed = pages.filter((e) => e.params.sysparm_query.includes(rangeQuery(3)));
    assert(resumed.length > 0, "the restart read range 3");
    for (const i of [0, 1, 2]) {
      const again = pages.filter((e) => e.params.sysparm_query.includes(rangeQuery(i)));
      assert(again.length === 0, `finished range ${i} read again after the restart: ${again.length} pages`);
    }

    const last = new Map<string, Seen>();
    for (const s of seen) {
      const before = last.get(s.key);
      if (before) {
        assert(
          s.updated > before.updated || (s.updated === before.updated && s.modCount >= before.modCount),
          `key ${s.key}: version ${s.updated}/${s.modCount} arrived after ${before.updated}/${before.modCount}`,
        );
      }
      last.set(s.key, s);
    }
    assert(sim.counters.maxInFlight <= PERMITS, `in flight ${sim.counters.maxInFlight} > ${PERMITS} permits`);
    assert(sim.counters.maxInFlight >= 2, `ranges were read concurrently (max ${sim.counters.maxInFlight})`);
    console.log(
      `parallel backfill kill -9: ${new Set(seen.map((s) => s.key)).size} keys, ${seen.length} records, ` +
        `max in flight ${sim.counters.maxInFlight} of ${PERMITS}, ${resumed.length} pages of range 3 after restart`,
    );
  } finally {
    sim.writer.stop();
    await consumer.disconnect();
    await sim.stop();
  }
});
