/**
 * Tables on a source's tasks, through the real daemon and broker, with deletion capture: three tables on
 * `tasks.max: 3` (incident, problem and sys_user_group, which plain rendezvous hashing put on one task) run one
 * table per task, as the task configs and `GET /connectors/<name>/tables` show. Then `tasks.max: 1` over REST
 * moves two tables onto task 0, and a restart of the daemon with `tasks.max: 2` in its file moves them again:
 * each table carries its offset and its delete stream's (their source partitions are the table's, not the
 * task's), with the versions and deletions already sent in the re-read window, so after more changes and
 * deletions every row version and every tombstone is on its topic exactly once.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { repeated, topicVersions } from "../support/topic_versions.ts";
import { allOnTopics, changeTables } from "../support/table_changes.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";

const PASSWORD = "pw-Placement-Finch-8";
const TABLES = ["incident", "problem", "sys_user_group"];
const P = uniqueName("placement");

type TableEntry = { alias: string; task: number; rows_emitted: number };

Deno.test({
  name:
    "three tables on tasks.max 3 run one per task; moved by tasks.max over REST and across a restart, nothing twice",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const sim = await startSimulator({
      port: 0,
      seed: { incident: 60, problem: 50, sys_user_group: 40 },
      users: [`admin:${PASSWORD}`],
    });
    await using kafka = await startKafkaBroker();
    const topics = Object.fromEntries(TABLES.map((t) => [t, `${P}.${t}`]));
    for (const topic of Object.values(topics)) await kafka.createTopic(topic, 1);
    const config = sourceConnectorConfig(sim.url, PASSWORD, topics, {
      "svc.source.poll.interval.ms": 300,
      "svc.source.safety.lag.seconds": 1,
      // A re-read window that holds every change of this test: a task without the sent list re-sends them.
      "svc.source.overlap.seconds": 60,
      "tasks.max": 3,
      ...Object.fromEntries(TABLES.map((t) => [`svc.table.${t}.capture.deletes`, true])),
    });
    let daemon = await startDaemonProcess({
      worker: { "bootstrap.servers": kafka.bootstrapServers },
      connectors: [{ name: "spread", config }],
    });
    const tables = async () =>
      (await daemon.request("GET", "/connectors/spread/tables")).body as TableEntry[];
    const deleted: string[] = [];
    const settled = () => allOnTopics(kafka.bootstrapServers, sim, topics, deleted);
    const sentOnce = async (when: string) => {
      await new Promise((r) => setTimeout(r, 2000)); // anything sent twice would have landed by now
      for (const t of TABLES) {
        const seen = await topicVersions(kafka.bootstrapServers, topics[t]);
        assertEquals(repeated(seen), [], `${t}: sent twice ${when}`);
        assert(seen.versions.size >= sim.table(t).count, `${t}: ${seen.versions.size} versions`);
      }
    };
    try {
      const tasks = (await daemon.request("GET", "/connectors/spread/tasks")).body as {
        config: Record<string, string>;
      }[];
      assertEquals(
        tasks.map((t) => t.config["svc.tables"].split(",").length),
        [1, 1, 1],
        "one table per task",
      );
      // Each task reports the one table it polls.
      const placed = await waitFor(
        async () => {
          const list = await tables();
          return list.length === 3 && list.every((t) => t.rows_emitted > 0) ? list : null;
        },
        60_000,
        "every table reported with rows emitted",
      );
      assertEquals(placed.map((t) => t.task).sort(), [0, 1, 2], JSON.stringify(placed));
      for (const t of placed) assertEquals(tasks[t.task].config["svc.tables"], t.alias);
      deleted.push(...await changeTables(sim, PASSWORD, TABLES, 2, 2, "spread"));
      await settled();

      // One task: the tables of tasks 1 and 2 move to task 0, each from its committed offsets.
      const res = await daemon.request("PUT", "/connectors/spread/config", { ...config, "tasks.max": 1 });
      assertEquals(res.status, 200, JSON.stringify(res.body));
      await waitFor(
        async () => {
          const list = await tables();
          return list.length === 3 && list.every((t) => t.task === 0);
        },
        60_000,
        "every table on task 0",
      );
      deleted.push(...await changeTables(sim, PASSWORD, TABLES, 1, 3, "moved"));
      await settled();
      await sentOnce("after moving to task 0");

      // The daemon restarts with tasks.max 2 in its file (the edited file entry wins over the REST change).
      assertEquals((await daemon.stop("SIGTERM")).code, 0);
      daemon = await startDaemonProcess({
        worker: { "bootstrap.servers": kafka.bootstrapServers },
        connectors: [{ name: "spread", config: { ...config, "tasks.max": 2 } }],
      }, { dir: daemon.dir });
      const spread = await waitFor(
        async () => {
          const list = await tables();
          return list.length === 3 && new Set(list.map((t) => t.task)).size === 2 ? list : null;
        },
        60_000,
        "the tables on two tasks after the restart",
      );
      assert(spread.every((t) => t.task === 0 || t.task === 1), JSON.stringify(spread));
      deleted.push(...await changeTables(sim, PASSWORD, TABLES, 1, 3, "restarted"));
      await settled();
      await sentOnce("across the restart with tasks.max 2");
      for (const t of TABLES) {
        const { tombstones } = await topicVersions(kafka.bootstrapServers, topics[t]);
        assertEquals(tombstones.size, 4, `${t}: a tombstone for each of its 4 deleted rows`);
      }
    } catch (e) {
      console.log(daemon.output().split("\n").slice(-40).join("\n"));
      throw e;
    } finally {
      await daemon.stop("SIGTERM");
      await sim.stop();
    }
  },
});
