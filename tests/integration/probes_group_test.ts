/**
 * The probes, cluster-wide logger levels and a create that cannot be stored, on one real daemon in a worker group,
 * against a broker of its own that the test pauses (SIGSTOP: it accepts connections but answers nothing, as a hung
 * or partitioned broker does) and resumes:
 * - started while the broker does not answer: /ready is 503 naming `kafka` and `group` (not joined yet), /health
 *   503 `starting`; once the broker answers, both 200 and the group check passes;
 * - `PUT /admin/loggers/<name>?scope=cluster` goes through the config topic and comes back to this member;
 * - `topic.tracking.allow.reset=false` refuses `PUT .../topics/reset` with Connect's 403;
 * - a config larger than the broker's `message.max.bytes` cannot be written to the config topic: a 500 saying so,
 *   and no connector registered (the "500 yet left a connector registered as UNASSIGNED");
 * - the broker paused while the daemon runs: /ready turns 503 (`kafka`, then `group` once membership is lost) while
 *   /health stays 200 (the process is alive; restarting it would not help); resumed: /ready is 200 again.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { launchKafkaBroker, stopKafkaBroker } from "../support/kafka_broker_process.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";

const MESSAGE_MAX_BYTES = 100_000;

function pause(pid: number, paused: boolean): void {
  Deno.kill(pid, paused ? "SIGSTOP" : "SIGCONT");
}

Deno.test({
  name: "group mode: /ready names kafka and group, false while the broker does not answer, true again after",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const broker = await launchKafkaBroker({ serverProperties: { "message.max.bytes": MESSAGE_MAX_BYTES } });
    try {
      pause(broker.pid, true);
      const daemon = await startDaemonProcess({
        worker: {
          "bootstrap.servers": broker.bootstrapServers,
          "group.id": "probes-workers",
          "offset.storage.topic": "probes.offsets",
          "config.storage.topic": "probes.configs",
          "status.storage.topic": "probes.status",
          "offset.storage.replication.factor": 1,
          "session.timeout.ms": 4000,
          "heartbeat.interval.ms": 1000,
          // Connect's worker key: GET .../topics answers, the reset is refused.
          "topic.tracking.allow.reset": false,
        },
        connectors: [],
      }, { until: "listening" });
      try {
        // Before Kafka answers: not ready, naming Kafka and the group this member has not joined.
        const early = await daemon.request("GET", "/ready");
        assertEquals(early.status, 503, JSON.stringify(early.body));
        assertEquals(early.body.checks.kafka.ready, false);
        assertEquals(early.body.checks.group.ready, false, JSON.stringify(early.body));
        assertStringIncludes(early.body.message, "group: not a member of the worker group");
        assertEquals((await daemon.request("GET", "/health")).status, 503);
        pause(broker.pid, false);

        const ready = await waitFor(
          async () => {
            const res = await daemon.request("GET", "/ready");
            return res.status === 200 ? res.body : null;
          },
          90_000,
          "/ready 200 once the broker answers and the group is joined",
        );
        assertEquals(ready.checks, {
          config: { ready: true },
          worker: { ready: true },
          kafka: { ready: true },
          group: { ready: true },
        });
        assertEquals((await daemon.request("GET", "/health")).body.status, "healthy");

        // topic.tracking.allow.reset=false: Connect's 403, checked before the connector is looked up.
        const reset = await daemon.request("PUT", "/connectors/any/topics/reset");
        assertEquals(reset.body, { error_code: 403, message: "Topic tracking reset is disabled." });
        assertEquals((await daemon.request("GET", "/connectors/any/topics")).status, 404);

        // Cluster scope: written to the config topic, applied here when read back.
        const cluster = await daemon.request("PUT", "/admin/loggers/task?scope=cluster", { level: "DEBUG" });
        assertEquals(cluster.status, 204);
        await waitFor(
          async () => (await daemon.request("GET", "/admin/loggers/task")).body.level === "DEBUG",
          30_000,
          "the cluster-wide level read back from the config topic",
        );

        // A config the config topic cannot hold: refused, and nothing registered.
        const big = sourceConnectorConfig("http://127.0.0.1:1", "pw-Probes-Ibis-40", {
          incident: "probes.in",
        }, {
          "svc.table.incident.query": `short_description=${"x".repeat(2 * MESSAGE_MAX_BYTES)}`,
        });
        const refused = await daemon.request("POST", "/connectors", { name: "too-big", config: big });
        assertEquals(refused.status, 500, JSON.stringify(refused.body));
        assertEquals(refused.body.error_code, 500);
        assertStringIncludes(refused.body.message, "could not be stored, so it was not applied");
        assertEquals((await daemon.request("GET", "/connectors")).body, []);
        assertEquals((await daemon.request("GET", "/connectors/too-big/status")).status, 404);

        // The broker stops answering while the daemon runs.
        pause(broker.pid, true);
        const down = await waitFor(
          async () => {
            const res = await daemon.request("GET", "/ready");
            return res.status === 503 && !res.body.checks.group.ready ? res.body : null;
          },
          60_000,
          "/ready 503 with kafka and group failing while the broker is paused",
        );
        assertEquals(down.checks.kafka.ready, false);
        assertStringIncludes(down.message, "kafka: ");
        const health = await daemon.request("GET", "/health");
        assertEquals([health.status, health.body.status], [200, "healthy"]);

        pause(broker.pid, false);
        await waitFor(
          async () => (await daemon.request("GET", "/ready")).status === 200,
          90_000,
          "/ready 200 again once the broker answers and the member rejoined",
        );
        assert(
          daemon.output().includes("group membership lost"),
          "the member noticed it lost its membership",
        );
      } finally {
        pause(broker.pid, false);
        await daemon.stop();
      }
    } finally {
      await stopKafkaBroker(broker);
    }
  },
});
