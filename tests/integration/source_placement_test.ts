/**
 * Tables on a source's tasks, through the real daemon and broker: three tables on `tasks.max: 3` (incident,
 * problem and sys_user_group, which plain rendezvous hashing put on one task) run one table per task, as the
 * task configs and `GET /connectors/<name>/tables` show. Then `tasks.max: 1` moves two tables onto task 0: each
 * carries its offset (its source partition is the table's, not the task's), so after more changes every row
 * version is on its topic exactly once.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { startDaemonProcess, waitFor } from "../support/daemon_process.ts";
import { currentVersions, repeated, topicVersions } from "../support/topic_versions.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";

const PASSWORD = "pw-Placement-Finch-8";
const TABLES = ["incident", "problem", "sys_user_group"];
const P = uniqueName("placement");

type TableEntry = { alias: string; task: number; rows_emitted: number };

Deno.test({
  name: "three tables on tasks.max 3 run one per task; moved to one task, each table keeps its offset",
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
      "tasks.max": 3,
    });
    const daemon = await startDaemonProcess({
      worker: { "bootstrap.servers": kafka.bootstrapServers },
      connectors: [{ name: "spread", config }],
    });
    const tables = async () =>
      (await daemon.request("GET", "/connectors/spread/tables")).body as TableEntry[];
    const allOnTopics = () =>
      waitFor(
        async () => {
          for (const t of TABLES) {
            const { versions } = await topicVersions(kafka.bootstrapServers, `${P}.${t}`);
            if (!currentVersions(sim, t).every((v) => versions.has(v))) return false;
          }
          return true;
        },
        60_000,
        "every row's current version on its topic",
      );
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
      await allOnTopics();

      // One task: the tables of tasks 1 and 2 move to task 0, each from its committed offset.
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
      for (const t of TABLES) {
        const ids = sim.table(t).sysIds().slice(0, 3);
        for (const id of ids) sim.table(t).update(id, { short_description: `moved ${t}` });
        sim.table(t).insert({ short_description: `new ${t}` });
      }
      await allOnTopics();
      await new Promise((r) => setTimeout(r, 2000)); // anything sent twice would have landed by now
      for (const t of TABLES) {
        const seen = await topicVersions(kafka.bootstrapServers, `${P}.${t}`);
        assertEquals(repeated(seen), [], `${t}: sent twice after moving to task 0`);
        assert(seen.versions.size >= sim.table(t).count, `${t}: ${seen.versions.size} versions`);
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
