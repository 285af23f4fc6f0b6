/**
 * Exactly-once under kill -9 (the shape of source_crash_test.ts, with exactly.once.source.support=enabled): the
 * daemon is killed at random instants during backfill and streaming, with a live writer and rows deleted
 * meanwhile (deletion capture), and restarted each time; the re-reads of each restart's overlap window are
 * deduplicated through the versions listed in the committed offsets. Read with read_committed afterwards: no row version
 * twice, every final version and every tombstone there, each key's records in order.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { exactlyOnceWorker } from "../support/exactly_once_worker.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import {
  describeVerdict,
  type ExactlyOnceVerdict,
  exactlyOnceVerdict,
} from "../support/exactly_once_check.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Once-Heron-7";

Deno.test("exactly-once: kill -9 during backfill and streaming, live writer and deletes: 0 duplicates, 0 missing, order kept", async () => {
  await killAndRestart({ kills: 6, rows: 6000, parallelism: 1, deletes: true });
});

Deno.test("exactly-once: kill -9 during a parallel backfill (4 ranges), the connector's own offsets topic: 0 duplicates, 0 missing, order kept", async () => {
  // No deletion capture here: a first run waits for its first tombstones, and the backfill would be over by then.
  // The connector's own offsets topic (offsets.storage.topic), read and written instead of the worker's.
  await killAndRestart({ kills: 4, rows: 20000, parallelism: 4, deletes: false, ownOffsetsTopic: true });
});

async function killAndRestart(
  { kills, rows, parallelism, deletes, ownOffsetsTopic = false }: {
    kills: number;
    rows: number;
    parallelism: number;
    deletes: boolean;
    ownOffsetsTopic?: boolean;
  },
) {
  // With parallel ranges, 200 ms per instance request and pages of 100 (50 pages a range, 10 s at least) keep the
  // backfill going across several kills.
  const sim = await startSimulator({
    port: 0,
    seed: { incident: rows },
    users: [`admin:${PASSWORD}`],
    ...(parallelism > 1 ? { latencyMs: 200 } : {}),
  });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("eos.incident");
  const offsetsTopic = uniqueName("eos.offsets");
  await kafka.createTopic(topic, 4);
  const config = {
    worker: exactlyOnceWorker(kafka.bootstrapServers, offsetsTopic, 3),
    connectors: [{
      name: "eos",
      config: sourceConnectorConfig(sim.url, PASSWORD, { incident: topic }, {
        "exactly.once.support": "required",
        ...(ownOffsetsTopic ? { "offsets.storage.topic": `${offsetsTopic}.own` } : {}),
        "svc.table.incident.fields": "sys_id,sys_updated_on,sys_mod_count,number,state",
        "svc.table.incident.capture.deletes": deletes,
        "svc.source.batch.size": parallelism > 1 ? 100 : 500,
        "svc.source.poll.interval.ms": 200,
        "svc.source.overlap.seconds": 2,
        "svc.source.startup.probe": false,
        "svc.source.backfill.parallelism": parallelism,
      }),
    }],
  };
  const table = sim.table("incident");
  const deleted = new Set<string>();
  const deleteSome = (n: number) => {
    for (const id of table.sysIds().slice(-n)) if (table.delete(id)) deleted.add(id);
  };
  sim.writer.start({ rowsPerSecond: 100, table: "incident", insertRatio: 0.3 });
  let dir: string | undefined;
  let resumedRanges = 0;
  try {
    for (let i = 0; i < kills; i++) {
      const daemon = await startDaemonProcess(config, { dir });
      dir = daemon.dir;
      if (i === 0 && deletes) {
        // A delete stream without a committed offset starts at the instance's present (docs/source.md): the
        // first deletions come once it reads, and the first kill waits until they are committed, so that every
        // later run resumes deletions from a committed offset.
        await waitFor(() => daemon.output().includes("deletions of incident are read from"), 60_000);
        await new Promise((r) => setTimeout(r, 1100)); // past the stream's start second
        deleteSome(3);
        const first = [...deleted];
        await waitFor(
          async () => {
            const records = await readTopicWithKcat(kafka.bootstrapServers, topic, { readCommitted: true });
            return first.every((id) => records.some((r) => r.key === id && r.value === null));
          },
          60_000,
          "the first tombstones committed",
        );
      } else if (deletes) deleteSome(3);
      if (i === 0 && parallelism > 1) {
        // The first kill waits for a committed transaction, so that some restart has ranges to resume (a kill
        // before any commit would leave the next run a fresh start, and random kill times can do that each time).
        // The connector's offsets over REST are those committed (a read_committed reader of the topic would wait
        // for a moment with no transaction open, which a backfill never has).
        await waitFor(
          async () =>
            ((await daemon.request("GET", "/connectors/eos/offsets")).body?.offsets ?? []).length > 0,
          60_000,
          "a first committed transaction of the parallel backfill",
        );
      }
      const firstOfParallel = i === 0 && parallelism > 1; // killed as soon as it committed, mid-backfill
      if (!firstOfParallel) await new Promise((r) => setTimeout(r, 500 + Math.random() * 2500));
      await daemon.stop("SIGKILL");
      await Deno.writeTextFile(`${dir}/daemon-${i}.log`, daemon.output());
      if (daemon.output().includes("resumes its parallel backfill")) resumedRanges++;
    }
    sim.writer.stop();
    if (deletes) deleteSome(3);
    const final = await startDaemonProcess(config, { dir });
    try {
      let verdict: ExactlyOnceVerdict | undefined;
      await waitFor(
        async () => {
          verdict = await exactlyOnceVerdict(kafka.bootstrapServers, topic, table, deleted);
          return verdict.missing.length === 0;
        },
        120_000,
        "every final version and tombstone, committed",
      ).catch((e) => {
        throw new Error(`${e.message}: ${verdict && describeVerdict(verdict)}; logs in ${dir}`);
      });
      console.log(
        `exactly-once kill -9 x${kills} (backfill parallelism ${parallelism}): ${table.count} rows, ${deleted.size} deleted: ${
          describeVerdict(verdict!)
        }`,
      );
      if (parallelism > 1) assert(resumedRanges > 0, "no restart resumed a parallel backfill");
      if (ownOffsetsTopic) {
        const read = (t: string) => readTopicWithKcat(kafka.bootstrapServers, t, { readCommitted: true });
        assert((await read(`${offsetsTopic}.own`)).length > 0, "no offsets in the connector's own topic");
        assertEquals((await read(offsetsTopic)).length, 0, "offsets in the worker's topic");
      }
      assertEquals(verdict!.duplicates, [], describeVerdict(verdict!));
      assertEquals(verdict!.disordered, [], describeVerdict(verdict!));
      assert(verdict!.records > table.count, "the topic holds the updates too");
      const status = await final.request("GET", "/connectors/eos/status");
      assertEquals(status.body.tasks[0].state, "RUNNING");
    } finally {
      await final.stop("SIGTERM");
    }
  } finally {
    sim.writer.stop();
    await sim.stop();
  }
}
