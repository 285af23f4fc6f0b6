/**
 * Worker group failover: two daemons in one group share a 2-table source; one member is stopped (kill -9, then,
 * in a second round, SIGTERM) and the figures are
 *   - tasks moved: from the stop until the survivor's status shows every task RUNNING on the survivor;
 *   - data flowing: from the stop until a row inserted on the instance right after it is on its Kafka topic.
 * Both include the group coordinator noticing the loss (session.timeout.ms for kill -9, at once for a graceful
 * leave) and the broker's rebalance delays.
 *
 *   deno run -A bench/group_failover.ts [--session-ms 10000] [--poll-ms 1000]
 *
 * The simulator, the broker (a real single-node Kafka broker, see bench/support/processes.ts) and the daemons
 * run as separate processes; figures are printed, never asserted.
 */
import {
  arg,
  fmt,
  type Proc,
  startBrokerProcess,
  startDaemonProcess,
  startSimulatorProcess,
} from "./support/processes.ts";
import { createKafka } from "../src/kafka/mod.ts";
import { waitFor } from "../tests/support/wait.ts";

const sessionMs = arg("session-ms", 10_000);
const pollMs = arg("poll-ms", 1000);
const TABLES = ["incident", "problem"];
/** The bound on each awaited step (a guard against a hang, not a figure). */
const STEP_TIMEOUT_MS = 180_000;
const auth = { authorization: "Basic " + btoa("admin:bench-pass"), "content-type": "application/json" };

const sim = await startSimulatorProcess(TABLES.map((t) => `${t}=200`).join(","));
const broker = await startBrokerProcess(
  ["gf.offsets:5", "gf.configs:1", "gf.status:5", ...TABLES.map((t) => `gf.${t}:2`)].join(","),
);
const worker = {
  "bootstrap.servers": broker.bootstrap,
  "listeners": "http://127.0.0.1:0",
  "group.id": "bench-group",
  "offset.storage.topic": "gf.offsets",
  "config.storage.topic": "gf.configs",
  "status.storage.topic": "gf.status",
  "session.timeout.ms": sessionMs,
  "heartbeat.interval.ms": Math.min(3000, Math.floor(sessionMs / 3)),
  "log.level": "info",
};
const source: Record<string, string | number | boolean> = {
  "connector.class": "TableSourceConnector",
  "svc.url": sim.url,
  "svc.auth.username": "admin",
  "svc.auth.password": "bench-pass",
  "svc.tables": TABLES.join(","),
  "svc.source.poll.interval.ms": pollMs,
  "svc.source.startup.probe": false,
  "tasks.max": 2,
};
for (const t of TABLES) {
  source[`svc.table.${t}.name`] = t;
  source[`svc.table.${t}.topic`] = `gf.${t}`;
}

type Member = Proc & { url: string };
const startMember = (connectors: unknown[]) => startDaemonProcess({ worker, connectors }) as Promise<Member>;
const host = (m: Member) => new URL(m.url).host;

async function runningOn(member: Member): Promise<string[] | null> {
  const res = await fetch(`${member.url}/connectors/src/status`).catch(() => null);
  if (!res || res.status !== 200) return null;
  const body = await res.json();
  const tasks = body.tasks as { state: string; worker_id: string }[];
  return tasks.length > 0 && tasks.every((t) => t.state === "RUNNING") ? tasks.map((t) => t.worker_id) : null;
}

/** Inserts a row on the instance and resolves with its sys_id. */
async function insert(table: string): Promise<string> {
  const res = await fetch(`${sim.url}/api/now/table/${table}`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ short_description: "failover probe" }),
  });
  if (!res.ok) throw new Error(`insert into ${table}: HTTP ${res.status}`);
  return (await res.json()).result.sys_id;
}

// A consumer that records when each key first reached its topic.
const arrived = new Map<string, number>();
const kafka = createKafka({
  brokers: [broker.bootstrap],
  clientId: "bench",
  requestTimeoutMs: 10_000,
  connectionTimeoutMs: 3_000,
});
const consumer = await kafka.consumer({ topics: TABLES.map((t) => `gf.${t}`) }, {
  groupId: `bench-reader-${crypto.randomUUID()}`,
  sessionTimeoutMs: 10_000,
  fetchMaxWaitMs: 50,
});
await consumer.run((batch) => {
  for (const r of batch.records) {
    const key = r.key ? new TextDecoder().decode(r.key) : "";
    if (!arrived.has(key)) arrived.set(key, performance.now());
  }
  return Promise.resolve();
});

let members: Member[] = [];
try {
  members = await Promise.all([startMember([{ name: "src", config: source }]), startMember([])]);
  for (const [round, signal] of [[1, "SIGKILL"], [2, "SIGTERM"]] as const) {
    await waitFor(
      async () => {
        const on = await runningOn(members[0]);
        return on && new Set(on).size === 2 ? on : null;
      },
      STEP_TIMEOUT_MS,
      "one task on each member",
    );
    const [victim, survivor] = members;
    const stoppedAt = performance.now();
    victim.child.kill(signal);
    const probes = await Promise.all(TABLES.map((t) => insert(t)));
    await waitFor(
      async () => {
        const on = await runningOn(survivor);
        return on && on.every((w) => w === host(survivor)) ? on : null;
      },
      STEP_TIMEOUT_MS,
      "every task on the survivor",
    );
    const moved = performance.now() - stoppedAt;
    await waitFor(() => probes.every((id) => arrived.has(id)), STEP_TIMEOUT_MS, "the probe rows on Kafka");
    const flowing = Math.max(...probes.map((id) => arrived.get(id)!)) - stoppedAt;
    console.log(
      `round ${round} (${signal}, session.timeout.ms ${fmt(sessionMs)}, poll ${fmt(pollMs)} ms): ` +
        `tasks moved in ${fmt(moved / 1000, 1)} s, probe rows on Kafka after ${fmt(flowing / 1000, 1)} s`,
    );
    await victim.child.status;
    members = [survivor, await startMember([])];
  }
} finally {
  await consumer.close();
  await Promise.all(members.map((m) => m.stop()));
  await Promise.all([sim.stop(), broker.stop()]);
}
