/**
 * Instance sessions through the real daemon: the simulator keeps sessions (one request of a session at a time,
 * 202 past its waiters) on two nodes behind a balancer, and a parallel backfill of over a thousand requests
 * reuses one session per concurrent stream, so the instance opens no more sessions per 1,000 requests than the
 * daemon has permits, and no request is answered 202.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";

const ROWS = 6000;
const PAGE = 5;
const PERMITS = 4;

Deno.test("a parallel backfill opens at most one instance session per permit per 1,000 requests, and none is answered 202", async () => {
  const sim = await startSimulator({
    seed: { incident: ROWS },
    users: ["admin:pw-Sessions-3"],
    sessions: {},
    nodes: 2,
  });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("sessions.incident");
  await kafka.createTopic(topic, 2);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "incidents",
      config: sourceConnectorConfig(sim.url, "pw-Sessions-3", { incident: topic }, {
        "svc.source.batch.size": PAGE,
        "svc.source.backfill.parallelism": 4,
        "svc.http.max.concurrent.requests": PERMITS,
        "svc.source.poll.interval.ms": 200,
      }),
    }],
  });
  try {
    const records = await consumeAll(kafka.bootstrapServers, topic, { expected: ROWS, timeoutMs: 120_000 });
    assertEquals(new Set(records.map((r) => r.key)).size, ROWS, daemon.output().slice(-3000));
    const { requests, sessionsOpened, sessionOverflows } = sim.counters;
    const per1000 = (sessionsOpened / requests) * 1000;
    console.log(
      `${requests} requests, ${sessionsOpened} sessions opened (${per1000.toFixed(1)} per 1,000 requests, ` +
        `${PERMITS} permits), ${sessionOverflows} answered 202`,
    );
    assert(requests >= 1000, `only ${requests} requests: too few to measure per 1,000`);
    assert(per1000 <= PERMITS, `${per1000.toFixed(1)} sessions per 1,000 requests for ${PERMITS} permits`);
    assertEquals(sessionOverflows, 0, "no session ever had more than one request of ours waiting");
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0, daemon.output().slice(-3000));
  }
});
