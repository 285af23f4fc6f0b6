/**
 * Two daemons of one worker group (one user) against an instance rate-limit rule: each member takes half of the
 * budget (the group's assignment carries its member count), so together they stay inside the rule: no request
 * is answered 429 while their 40 tables at a 100 ms poll interval would need 400 requests a second. Without the
 * share each member would pace itself to the whole rule and together they would spend nearly twice it.
 */
import { assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { filteredAliases } from "../support/source_connector.ts";

const PASSWORD = "pw-Group-Budget-9";
const TABLES = 40;
const WINDOW_SECONDS = 5;
/** Windows over which no 429 may occur once both members run their tasks. */
const WINDOWS = 4;
const P = uniqueName("gbudget");

Deno.test({
  name: "two members of a worker group share one rate-limit rule: together no 429",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const sim = await startSimulator({
      port: 0,
      users: [`admin:${PASSWORD}`],
      rateLimit: { requests: 60, windowSeconds: WINDOW_SECONDS },
    });
    await using kafka = await startKafkaBroker();
    const topic = `${P}.incident`;
    await kafka.createTopic(topic, 2);
    const aliases = Array.from({ length: TABLES }, (_, i) => `t${i}`);
    for (const alias of aliases) sim.table("incident").insert({ short_description: alias });
    const config = {
      "connector.class": "TableSourceConnector",
      "svc.url": sim.url,
      "svc.auth.username": "admin",
      "svc.auth.password": PASSWORD,
      ...filteredAliases("incident", topic, aliases),
      "svc.source.poll.interval.ms": 100,
      "svc.source.poll.interval.max.ms": 2000,
      "svc.source.startup.probe": false,
      "svc.retry.max.attempts": 20,
      "tasks.max": 2,
    };
    const worker = {
      "bootstrap.servers": kafka.bootstrapServers,
      "group.id": `${P}-workers`,
      "offset.storage.topic": `${P}.offsets`,
      "config.storage.topic": `${P}.configs`,
      "status.storage.topic": `${P}.status`,
      "session.timeout.ms": 6000,
      "heartbeat.interval.ms": 1000,
      "offset.storage.replication.factor": 1,
    };
    const members: DaemonProcess[] = [];
    try {
      members.push(
        ...await Promise.all(
          [[{ name: "src", config }], []].map((c) =>
            startDaemonProcess({ worker, connectors: c }, { timeoutMs: 60_000 })
          ),
        ),
      );
      // Both members run a task of the source, every table streaming.
      await waitFor(
        async () => {
          const status = (await members[1].request("GET", "/connectors/src/status")).body;
          const workers = new Set(
            (status?.tasks ?? []).filter((t: { state: string }) => t.state === "RUNNING").map((
              t: { worker_id: string },
            ) => t.worker_id),
          );
          if (workers.size !== 2) return null;
          // Each member lists the tables of the tasks it runs.
          const tables = (await Promise.all(
            members.map(async (m) => (await m.request("GET", "/connectors/src/tables")).body ?? []),
          )).flat();
          return tables.length === TABLES &&
            tables.every((t: { phase: string }) => t.phase === "streaming");
        },
        90_000,
        "both members running a task, every table streaming",
      );
      // From the next window on, the members' requests together stay inside the rule.
      const now = Date.now();
      await new Promise((r) => setTimeout(r, WINDOW_SECONDS * 1000 - (now % (WINDOW_SECONDS * 1000)) + 200));
      sim.counters.reset();
      await new Promise((r) => setTimeout(r, WINDOWS * WINDOW_SECONDS * 1000));
      const statuses = sim.counters.statuses();
      console.log(`statuses over ${WINDOWS} windows: ${JSON.stringify(statuses)}`);
      assertEquals(statuses[429] ?? 0, 0, "requests answered 429");
    } finally {
      for (const m of members) await m.stop("SIGTERM");
      await sim.stop();
    }
  },
});
