/**
 * kill -9 of the daemon at 20 random instants during backfill and streaming, each followed by a restart:
 * afterwards every row's final version is on the topic (nothing missing), and every duplicate lies inside a
 * restart's re-read window (committed cursor minus svc.source.overlap.seconds). The duplicate count is printed.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { collectTopic } from "../support/topic_collector.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { parseDateTimeUtc } from "../../src/config/validators.ts";

const OVERLAP_SECONDS = 2;

interface Seen {
  key: string;
  modCount: string;
  timestamp: number;
  /** partition/offset in Kafka: the same record read twice is not a duplicate the daemon sent. */
  at: string;
}

/** Consumes a topic continuously into `seen` until stopped. */
function collect(bootstrap: string, topic: string, seen: Seen[]) {
  return collectTopic(bootstrap, topic, seen, (m) => ({
    key: m.key,
    modCount: m.value.sys_mod_count as string,
    timestamp: m.timestamp,
    at: `${m.partition}/${m.offset}`,
  }));
}

async function committedCursorMs(path: string): Promise<number | null> {
  try {
    const doc = JSON.parse(await Deno.readTextFile(path));
    const ts = doc.rows?.[0]?.value?.timestamp;
    return typeof ts === "string" ? parseDateTimeUtc(ts) ?? null : null;
  } catch {
    return null;
  }
}

Deno.test("20 kill -9 during backfill and streaming lose nothing; duplicates only from re-read windows", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 20000 }, users: ["admin:pw-Crash-Kite-6"] });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("crash.incident", 8);
  const config = {
    worker: { "bootstrap.servers": kafka.bootstrapServers, "offset.flush.interval.ms": 200 },
    connectors: [{
      name: "crash",
      config: {
        "connector.class": "TableSourceConnector",
        "svc.url": sim.url,
        "svc.auth.username": "admin",
        "svc.auth.password": "pw-Crash-Kite-6",
        "svc.tables": "incident",
        "svc.table.incident.name": "incident",
        "svc.table.incident.topic": "crash.incident",
        // A narrow projection keeps the mock broker under its 5 MiB per partition retention.
        "svc.table.incident.fields": "sys_id,sys_updated_on,number,state",
        "svc.source.batch.size": 1000,
        "svc.source.poll.interval.ms": 200,
        "svc.source.overlap.seconds": OVERLAP_SECONDS,
        "svc.source.startup.probe": false,
      },
    }],
  };
  const seen: Seen[] = [];
  const consumer = await collect(kafka.bootstrapServers, "crash.incident", seen);
  sim.writer.start({ rowsPerSecond: 100, table: "incident", insertRatio: 0.3 });
  const windows: (number | null)[] = [];
  let dir: string | undefined;
  try {
    for (let i = 0; i < 20; i++) {
      const daemon = await startDaemonProcess(config, { dir });
      dir = daemon.dir;
      if (i === 0) {
        // The first kill lands after the first commit: a restart without any committed cursor re-reads from the
        // start timestamp, which would make the duplicate bound below vacuous.
        const offsets = `${dir}/offsets.json`;
        await waitFor(async () => (await committedCursorMs(offsets)) !== null, 60_000, "a first commit");
      }
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 1800));
      await daemon.stop("SIGKILL");
      // Kept for a failure's diagnosis (the error names the directory).
      await Deno.writeTextFile(`${dir}/daemon-${i}.log`, daemon.output());
      windows.push(await committedCursorMs(`${dir}/offsets.json`));
    }
    sim.writer.stop();
    const final = await startDaemonProcess(config, { dir });
    try {
      const table = sim.table("incident");
      const expected = new Map(table.sysIds().map((id) => [id, table.get(id)!.sys_mod_count]));
      const missing = () => {
        const have = new Set(seen.map((s) => `${s.key}/${s.modCount}`));
        return [...expected].filter(([id, mod]) => !have.has(`${id}/${mod}`));
      };
      await waitFor(() => missing().length === 0, 120_000, "every final row version on the topic").catch(
        async (e) => {
          const left = missing();
          // Told apart: versions the reader missed (they are on the topic) and versions never produced.
          const onTopic = new Set(
            (await readTopicWithKcat(kafka.bootstrapServers, "crash.incident")).map((r) =>
              `${r.key}/${JSON.parse(r.value!).sys_mod_count}`
            ),
          );
          const produced = left.filter(([id, mod]) => onTopic.has(`${id}/${mod}`)).length;
          const sample = left.slice(0, 5).map(([id, mod]) =>
            `${id}/${mod} @ ${table.get(id)!.sys_updated_on}`
          );
          throw new Error(
            `${e.message}: ${left.length} of ${expected.size} missing (${produced} of them are on the topic, read ` +
              `once again; the reader ${consumer.failure()?.message ?? "had not failed"}), e.g. ${
                sample.join(", ")
              }; ` +
              `${seen.length} records seen; each run's log in ${dir}; committed cursors ${
                JSON.stringify(windows)
              }; ` +
              final.output().slice(-1500),
          );
        },
      );
      const counts = new Map<string, Seen[]>();
      for (const s of seen) {
        counts.set(`${s.key}/${s.modCount}`, [...(counts.get(`${s.key}/${s.modCount}`) ?? []), s]);
      }
      const duplicates = [...counts.values()].filter((list) => list.length > 1);
      const extra = duplicates.reduce((n, list) => n + list.length - 1, 0);
      console.log(
        `kill -9 x20: ${expected.size} rows, ${seen.length} records (${
          new Set(seen.map((s) => s.at)).size
        } distinct offsets), ${duplicates.length} versions delivered more than once (${extra} extra records)`,
      );
      // A restart re-reads from (committed cursor − overlap). Every kill came after a commit, so every window is
      // bounded, and the bound must exclude records (else the check below could not fail).
      assert(
        windows.every((w) => w !== null),
        `a restart without a committed cursor: ${JSON.stringify(windows)}`,
      );
      const earliestWindow = Math.min(...windows.map((w) => w! - OVERLAP_SECONDS * 1000));
      assert(
        seen.some((s) => s.timestamp < earliestWindow),
        "no record lies before the earliest re-read window: the duplicate bound would prove nothing",
      );
      for (const list of duplicates) {
        const latest = Math.max(...list.map((s) => s.timestamp));
        assert(
          latest >= earliestWindow,
          `duplicate ${list[0].key}/${list[0].modCount} lies before every re-read window`,
        );
      }
      const status = await final.request("GET", "/connectors/crash/status");
      assertEquals(status.body.tasks[0].state, "RUNNING");
    } finally {
      await final.stop("SIGTERM");
    }
  } finally {
    sim.writer.stop();
    await consumer.disconnect();
    await sim.stop();
  }
});
