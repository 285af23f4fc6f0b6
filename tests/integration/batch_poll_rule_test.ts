/**
 * Batched idle polls (`svc.source.poll.batch=true`) under an hourly rate-limit rule, through the real daemon: the
 * instance counts every item of a batch (and the batch itself) against the rule, and so must the pacer, also for
 * batches underway when it learns a window. The simulator's clock is placed so that the daemon starts 90 s
 * before an hour ends (its first window is short); once polls are batched, the clock jumps to 20 s before the
 * next hour ends, so the daemon learns that window from an answer while batches are underway. Four task threads
 * of six tables each at a 200 ms poll interval want far more than the rule allows: the pacer has to hold them
 * back. Nothing may be answered 429, and at least half of the 20 s window's budget must be spent (else the test
 * would pass on a daemon that barely polled).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { consumeAll } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { filteredAliases, sourceConnectorConfig } from "../support/source_connector.ts";

const PASSWORD = "pw-Batch-Rule-5";
const HOUR_MS = 3_600_000;
const LIMIT = 1200;
const TABLES = 24;
/** Task threads sharing the host's budget: a few tables each, so batches are small and their own cost shows. */
const TASKS = 4;
/** Instance time left in the hour when the simulator starts, and after the jump. */
const FIRST_WINDOW_MS = 90_000;
const JUMP_WINDOW_MS = 20_000;

const requestsSoFar = (statuses: Record<number, number>) =>
  Object.values(statuses).reduce((a, b) => a + b, 0);

Deno.test("batched idle polls under an hourly rule: no 429 in a window learned while batches are underway", async () => {
  const now = Date.now();
  const offsetMs = Math.ceil((now + FIRST_WINDOW_MS) / HOUR_MS) * HOUR_MS - FIRST_WINDOW_MS - now;
  const sim = await startSimulator({
    port: 0,
    users: [`admin:${PASSWORD}`],
    rateLimit: { requests: LIMIT },
    // Each round trip takes a while, so batches are underway when an answer shows the new window.
    latencyMs: 100,
    clock: { mode: "offset", offsetMs },
  });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("batchrule.incident");
  await kafka.createTopic(topic, 1);
  const incidents = sim.table("incident");
  const aliases = Array.from({ length: TABLES }, (_, i) => `r${i}`);
  for (const alias of aliases) incidents.insert({ short_description: alias });
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers },
    connectors: [{
      name: "batchrule",
      config: sourceConnectorConfig(sim.url, PASSWORD, {}, {
        ...filteredAliases("incident", topic, aliases),
        "svc.source.poll.interval.ms": 200,
        "svc.source.poll.interval.max.ms": 200, // no poll scheduler: the pacer alone holds the polls back
        "svc.source.poll.batch": "true",
        "svc.retry.max.attempts": 20,
        "tasks.max": TASKS,
      }),
    }],
  });
  try {
    await consumeAll(kafka.bootstrapServers, topic, { expected: TABLES, timeoutMs: 30_000 });
    await waitFor(
      () => sim.journal.entries().some((e) => e.batchItem) || null,
      20_000,
      "idle polls batched",
    );
    const firstWindowEnd = now + offsetMs + FIRST_WINDOW_MS;
    const left = firstWindowEnd - sim.clock.nowMs();
    assert(left > 2000, `the daemon took too long to start: ${left} ms of the first window left`);
    // To 20 s before the next hour ends: the next answer shows a new window while other batches are underway.
    sim.clock.setOffset(offsetMs + left + HOUR_MS - JUMP_WINDOW_MS);
    const jumpedAt = Date.now();
    const before = requestsSoFar(sim.counters.statuses());
    await new Promise((r) => setTimeout(r, JUMP_WINDOW_MS + 1000));
    const statuses = sim.counters.statuses();
    const spent = requestsSoFar(statuses) - before;
    const batches = sim.journal.entries().filter((e) =>
      e.startedAt >= jumpedAt && e.route === "POST /api/now/batch"
    );
    console.log(
      `statuses ${JSON.stringify(statuses)}; ${spent} requests (${batches.length} batches) after the jump`,
    );
    assertEquals(statuses[429] ?? 0, 0, "requests answered 429");
    assert(
      spent >= LIMIT / 2,
      `only ${spent} of the window's ${LIMIT} requests spent: the rule was not pressing`,
    );
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0, daemon.output().slice(-3000));
  }
});
