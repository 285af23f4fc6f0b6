/**
 * The shared setup of the worker-group handover tests: a 2-task source with deletion capture and a re-read window
 * that holds every change of a test, the members' worker section on one broker, and a member's view of the
 * connector's status.
 */
import type { DaemonProcess } from "./daemon_process.ts";
import { startKafkaBroker } from "./kafka_broker.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { sourceConnectorConfig } from "./source_connector.ts";

export type ConnectorStatus = { tasks: { id: number; state: string; worker_id: string }[] };

/** A member's `GET /connectors/<name>/status`, or null while it does not know the connector. */
export async function statusOn(member: DaemonProcess, name: string): Promise<ConnectorStatus | null> {
  const res = await member.request("GET", `/connectors/${name}/status`);
  return res.status === 200 ? res.body : null;
}

/** The worker section of every member of group `<prefix>-workers`, its topics named after `prefix`. */
export function groupWorker(bootstrap: string, prefix: string, extra: Record<string, string | number> = {}) {
  return {
    "bootstrap.servers": bootstrap,
    "group.id": `${prefix}-workers`,
    "offset.storage.topic": `${prefix}.offsets`,
    "offset.storage.replication.factor": 1,
    "config.storage.topic": `${prefix}.configs`,
    "status.storage.topic": `${prefix}.status`,
    "session.timeout.ms": 6000,
    "heartbeat.interval.ms": 1000,
    "offset.flush.interval.ms": 200,
    ...extra,
  };
}

/** A source on `tasks.max: 2` capturing deletions, whose 60 s re-read window holds every change of a test. */
export function capturingSource(
  simUrl: string,
  password: string,
  topics: Record<string, string>,
  pollMs: number,
): Record<string, string | number | boolean> {
  return sourceConnectorConfig(simUrl, password, topics, {
    "svc.source.poll.interval.ms": pollMs,
    "svc.source.safety.lag.seconds": 1,
    // A successor without the list of versions sent in the window would send them again.
    "svc.source.overlap.seconds": 60,
    "tasks.max": 2,
    ...Object.fromEntries(Object.keys(topics).map((t) => [`svc.table.${t}.capture.deletes`, true])),
  });
}

/**
 * The simulator (40 rows in each table, user `admin` with `password`) and the broker with a 2-partition topic
 * `<prefix>.<table>` per table; disposing stops the simulator (the broker is shared by the run).
 */
export async function handoverFixture(prefix: string, password: string, tables: readonly string[]) {
  const sim = await startSimulator({
    port: 0,
    seed: Object.fromEntries(tables.map((t) => [t, 40])),
    users: [`admin:${password}`],
  });
  const kafka = await startKafkaBroker();
  const topics = Object.fromEntries(tables.map((t) => [t, `${prefix}.${t}`]));
  for (const topic of Object.values(topics)) await kafka.createTopic(topic, 2);
  return {
    sim,
    bootstrap: kafka.bootstrapServers,
    topics,
    async [Symbol.asyncDispose]() {
      await sim.stop();
      await kafka[Symbol.asyncDispose]();
    },
  };
}
