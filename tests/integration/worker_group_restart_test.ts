/**
 * Restarts over REST in a worker group (two real daemon processes, same group.id, the real Kafka broker): a
 * restart asked on one member takes effect on the member running the task, through the config topic's restart
 * requests (Kafka Connect's KIP-745 records). Checked on the running member's own log and on the statuses.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { readTopicWithKcat } from "../support/kafka_helpers.ts";
import {
  type ConnectorStatus,
  connectorStatus,
  type DaemonProcess,
  startDaemonProcess,
} from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";

const PASSWORD = "pw-Restart-Wren-41";
const TABLES = ["incident", "problem"];
const P = uniqueName("grouprestart");

const host = (m: DaemonProcess) => new URL(m.url).host;

const status = (member: DaemonProcess) => connectorStatus(member, "src");

/** Lines of the member's log saying it restarted something (task or connector). */
const restarts = (m: DaemonProcess, what: string) =>
  m.output().split("\n").filter((l) => l.includes(`"restarting ${what}`)).length;

Deno.test({
  name: "worker group: a restart asked on one member restarts the task on the member running it",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const sim = await startSimulator({
      port: 0,
      seed: Object.fromEntries(TABLES.map((t) => [t, 20])),
      users: [`admin:${PASSWORD}`],
    });
    await using kafka = await startKafkaBroker();
    for (const t of TABLES) await kafka.createTopic(`${P}.${t}`, 1);
    const source: Record<string, string | number | boolean> = {
      "connector.class": "TableSourceConnector",
      "svc.url": sim.url,
      "svc.auth.username": "admin",
      "svc.auth.password": PASSWORD,
      "svc.tables": TABLES.join(","),
      "svc.source.poll.interval.ms": 500,
      "svc.source.startup.probe": false,
      "tasks.max": 2,
    };
    for (const t of TABLES) {
      source[`svc.table.${t}.name`] = t;
      source[`svc.table.${t}.topic`] = `${P}.${t}`;
    }
    const worker = {
      "bootstrap.servers": kafka.bootstrapServers,
      "group.id": `${P}-workers`,
      "offset.storage.topic": `${P}.offsets`,
      "offset.storage.replication.factor": 1,
      "config.storage.topic": `${P}.configs`,
      "status.storage.topic": `${P}.status`,
      "session.timeout.ms": 6000,
      "heartbeat.interval.ms": 1000,
    };
    const members: DaemonProcess[] = [];
    /** The statuses last seen by each member, shown when the test fails. */
    let seen: (ConnectorStatus | null)[] = [];
    try {
      members.push(
        ...await Promise.all(
          [[{ name: "src", config: source }], []].map((connectors) =>
            startDaemonProcess({ worker, connectors }, { timeoutMs: 60_000 })
          ),
        ),
      );
      const [a, b] = members;
      // One task on each member, as both see it.
      // (An object: a task id 0 would read as "not yet" to waitFor.)
      const { id: onB } = await waitFor(
        async () => {
          const views = seen = await Promise.all(members.map(status));
          if (views.some((s) => !s || s.tasks.length !== 2 || s.tasks.some((t) => t.state !== "RUNNING"))) {
            return null;
          }
          const task = views[0]!.tasks.find((t) => t.worker_id === host(b));
          const sameView = JSON.stringify(views[0]!.tasks) === JSON.stringify(views[1]!.tasks);
          return task && sameView && views[0]!.tasks.some((t) => t.worker_id === host(a))
            ? { id: task.id }
            : null;
        },
        90_000,
        "one running task on each member",
      );

      // A task restart asked on A restarts the task on B, not on A.
      const restartsOnA = restarts(a, "task");
      assertEquals((await a.request("POST", `/connectors/src/tasks/${onB}/restart`)).status, 204);
      await waitFor(() => restarts(b, `task src-${onB}`) === 1, 30_000, `task src-${onB} restarted on B`);
      assertEquals(restarts(a, "task"), restartsOnA, "A restarted nothing of its own");
      await waitFor(
        async () => (await status(a))?.tasks.find((t) => t.id === onB)?.state === "RUNNING",
        30_000,
        "the task RUNNING again, as A sees it",
      );

      // A connector restart with its tasks, asked on A: answered with every task RESTARTING; each member
      // restarts what it runs.
      const res = await a.request("POST", "/connectors/src/restart?includeTasks=true");
      assertEquals(res.status, 202);
      assertEquals(res.body.connector.state, "RESTARTING");
      assertEquals(res.body.tasks.map((t: { state: string }) => t.state), ["RESTARTING", "RESTARTING"]);
      for (const m of members) {
        await waitFor(
          () => restarts(m, "connector src") === 1,
          30_000,
          `connector src restarted on ${host(m)}`,
        );
      }
      await waitFor(
        async () => {
          const views = await Promise.all(members.map(status));
          return views.every((s) => s?.tasks.length === 2 && s.tasks.every((t) => t.state === "RUNNING"));
        },
        30_000,
        "every task RUNNING again on both members",
      );

      // The requests are Connect's records in the config topic.
      const records = await readTopicWithKcat(kafka.bootstrapServers, `${P}.configs`);
      const request = records.find((r) => r.key === "restart-connector-src");
      assert(request, "a restart-connector-src record in the config topic");
      assertEquals(JSON.parse(request.value!), { "include-tasks": true, "only-failed": false });
      assert(records.some((r) => r.key === `restart-task-src-${onB}`));
    } catch (e) {
      console.log(`statuses last seen: ${JSON.stringify(seen)}`);
      for (const m of members) console.log(`--- ${host(m)}\n${m.output().split("\n").slice(-40).join("\n")}`);
      throw e;
    } finally {
      await Promise.all(members.map((m) => m.stop("SIGTERM").catch(() => {})));
      await sim.stop();
    }
  },
});
