/**
 * `tablesync probe`, the command a scratch image's HEALTHCHECK and a systemd unit's ExecStartPost run, against real
 * daemons: one that cannot reach Kafka (listening, /health and /ready 503: exit 1 naming the failing check), one on
 * the real broker (a `--ready --wait` started before the daemon exits 0 once it serves), the address taken from the
 * config file's listener with a wildcard host, and a port nothing listens on (exit 1, no answer).
 */
import { freePort } from "../support/ports.ts";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function probe(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, "probe", ...args],
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test({
  name:
    "probe: exit 1 naming the failing check while Kafka is unreachable, 1 with no answer on a closed port",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const port = freePort();
    const daemon = await startDaemonProcess({
      worker: { "listeners": `http://0.0.0.0:${port}`, "bootstrap.servers": `127.0.0.1:${freePort()}` },
      connectors: [],
    }, { until: "listening" });
    try {
      const ready = await probe(["--ready", "--config", daemon.configPath]);
      assertEquals(ready.code, 1, ready.stdout + ready.stderr);
      assertStringIncludes(ready.stderr, `http://127.0.0.1:${port}/ready: 503 not ready: `);
      assertStringIncludes(ready.stderr, "kafka: ");
      const health = await probe(["--url", daemon.url]);
      assertEquals(health.code, 1, health.stdout + health.stderr);
      assertStringIncludes(health.stderr, "/health: 503 starting: ");
    } finally {
      await daemon.stop();
    }
    const closed = await probe(["--url", `http://127.0.0.1:${port}`]);
    assertEquals(closed.code, 1);
    assertStringIncludes(closed.stderr, `http://127.0.0.1:${port}/health: no answer: `);
  },
});

Deno.test({
  name: "probe: --ready --wait started before the daemon exits 0 once it is ready; /health then 0",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using kafka = await startKafkaBroker();
    const port = freePort();
    const dir = await Deno.makeTempDir({ prefix: "tablesync-probe-" });
    // The probe reads the address from the same file the daemon will run: written here first.
    const worker = {
      "listeners": `http://0.0.0.0:${port}`,
      "bootstrap.servers": kafka.bootstrapServers,
      "offset.storage.file.filename": `${dir}/offsets.json`,
      "config.storage.file.filename": `${dir}/connectors.json`,
      "log.level": "info",
    };
    const configPath = `${dir}/tablesync.json`;
    await Deno.writeTextFile(configPath, JSON.stringify({ worker, connectors: [] }));
    const waiting = probe(["--ready", "--config", configPath, "--wait", "120"]);
    const daemon = await startDaemonProcess({ worker, connectors: [] }, { dir });
    try {
      const ready = await waiting;
      assertEquals(ready.code, 0, ready.stdout + ready.stderr);
      assertStringIncludes(ready.stdout, `http://127.0.0.1:${port}/ready: 200 ready: `);
      const health = await probe(["--config", configPath]);
      assertEquals(health.code, 0, health.stdout + health.stderr);
      assert(health.stdout.includes("/health: 200 healthy"), health.stdout);
    } finally {
      await daemon.stop();
    }
  },
});

Deno.test("probe: an address it cannot use is one line and exit 1, not a stack trace", async () => {
  const listeners = await probe([], { TABLESYNC_LISTENERS: "0.0.0.0:8083" });
  assertEquals(listeners.code, 1, listeners.stderr);
  assertEquals(
    listeners.stderr,
    "error: TABLESYNC_LISTENERS: 0.0.0.0:8083 is not a URL (e.g. http://0.0.0.0:8083)\n",
  );
  const dir = await Deno.makeTempDir({ prefix: "tablesync-probe-" });
  try {
    const configPath = `${dir}/tablesync.json`;
    const worker = {
      "listeners": "https://0.0.0.0:8443",
      "listeners.https.ssl.certificate.location": `${dir}/absent.pem`,
      "listeners.https.ssl.key.location": `${dir}/absent.key`,
    };
    await Deno.writeTextFile(configPath, JSON.stringify({ worker, connectors: [] }));
    const cert = await probe(["--config", configPath]);
    assertEquals(cert.code, 1, cert.stderr);
    assertStringIncludes(
      cert.stderr,
      `listeners.https.ssl.certificate.location ${dir}/absent.pem: cannot read it`,
    );
    assertEquals(cert.stderr.trim().split("\n").length, 1, cert.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
