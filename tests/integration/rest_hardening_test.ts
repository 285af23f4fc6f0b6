/**
 * REST hardening and probes on the real daemon (log.format=text): oversized bodies are refused with 413 before
 * they are read (a declared length) or once the limit is passed (a chunked 30 MB body: the answer arrives while
 * most of it is still unsent, and the daemon's peak RSS does not grow by half of it; the same on every endpoint
 * that takes a body); offsets a source task could not resume from 400; non-JSON bodies 415; bad connector names 400 naming the name; a create whose
 * config cannot be stored leaves nothing registered; /health and /ready; /admin/loggers changes what a running
 * task logs; KIP-558 active topics after data flowed and after a reset. A second daemon pointed at a closed port
 * answers /health and /ready (503, naming Kafka) without the bearer token while it waits for Kafka.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../support/assert.ts";
import { startKafkaBroker } from "../support/kafka_broker.ts";
import { type DaemonProcess, startDaemonProcess } from "../support/daemon_process.ts";
import { peakRss } from "../support/process_stats.ts";
import { waitFor } from "../support/wait.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { launchChromium } from "../support/browser.ts";

const PASSWORD = "pw-Hardening-Lark-31";
const BODY_LIMIT = 1024 * 1024;

const sourceConfig = (simUrl: string) =>
  sourceConnectorConfig(simUrl, PASSWORD, { incident: "hard.incident" }, {
    "svc.source.poll.interval.ms": 200,
    "svc.source.safety.lag.seconds": 0,
  });

/** Sends raw HTTP/1.1 over TCP: the head, then (optionally) chunks until the answer arrives or `total` is sent. */
async function rawRequest(
  url: string,
  head: string,
  body?: { total: number; chunk: number },
): Promise<{ status: number; text: string; bytesSent: number }> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  let answer = "";
  const answered = (async () => {
    const buffer = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      answer += new TextDecoder().decode(buffer.subarray(0, n));
      if (/\r\n\r\n[\s\S]*\}/.test(answer)) break;
    }
  })();
  let done = false;
  answered.then(() => done = true);
  await conn.write(new TextEncoder().encode(head));
  let bytesSent = 0;
  if (body) {
    const chunk = new TextEncoder().encode(`${body.chunk.toString(16)}\r\n${" ".repeat(body.chunk)}\r\n`);
    try {
      while (!done && bytesSent < body.total) {
        await conn.write(chunk);
        bytesSent += body.chunk;
      }
      if (!done) await conn.write(new TextEncoder().encode("0\r\n\r\n"));
    } catch { /* the server closed the connection after answering */ }
  }
  await answered;
  try {
    conn.close();
  } catch { /* closed */ }
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
  return { status, text: answer, bytesSent };
}

Deno.test("REST hardening, probes, loggers and active topics on the real daemon", async () => {
  const sim = await startSimulator({ port: 0, seed: { incident: 50 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  await kafka.createTopic("hard.incident", 1);
  const dir = await Deno.makeTempDir({ prefix: "tablesync-hard-" });
  const daemon: DaemonProcess = await startDaemonProcess({
    worker: {
      "bootstrap.servers": kafka.bootstrapServers,
      "config.storage.file.filename": `${dir}/state/connectors.json`,
      "log.format": "text",
    },
    connectors: [],
  }, { dir });
  try {
    const post = (path: string, body: unknown) => daemon.request("POST", path, body);

    // Probes: the worker has started and Kafka answers.
    const health = await daemon.request("GET", "/health");
    assertEquals([health.status, health.body.status], [200, "healthy"]);
    const ready = await daemon.request("GET", "/ready");
    assertEquals([ready.status, ready.body.status], [200, "ready"], JSON.stringify(ready.body));
    assertEquals(ready.body.checks.kafka.ready, true);

    // 413: a declared length over the limit is refused without reading (no body is ever sent here).
    const peakBefore = peakRss(daemon.process.pid);
    const declared = await rawRequest(
      daemon.url,
      `POST /connectors HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${
        30 * 1024 * 1024
      }\r\n\r\n`,
    );
    assertEquals(declared.status, 413, declared.text);
    assertStringIncludes(declared.text, '"error_code":413');
    // 413: a chunked 30 MB body; the answer comes while most of the body is still unsent.
    const total = 30 * 1024 * 1024;
    const chunked = await rawRequest(
      daemon.url,
      "POST /connectors HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
      { total, chunk: 64 * 1024 },
    );
    assertEquals(chunked.status, 413, chunked.text);
    assertStringIncludes(chunked.text, `rest.request.max.bytes (${BODY_LIMIT} bytes)`);
    assert(chunked.bytesSent < total / 2, `sent ${chunked.bytesSent} of ${total} bytes before the answer`);
    assertEquals((await daemon.request("GET", "/health")).status, 200, "the daemon still answers");
    const grown = peakRss(daemon.process.pid) - peakBefore;
    assert(grown < total / 2, `the daemon's peak RSS grew by ${grown} bytes for a ${total}-byte body`);

    // 415: a body that is not JSON.
    const plain = await fetch(`${daemon.url}/connectors`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ name: "plain", config: sourceConfig(sim.url) }),
    });
    assertEquals(plain.status, 415);
    const plainBody = await plain.json();
    assertEquals(plainBody.error_code, 415);
    assertStringIncludes(plainBody.message, "text/plain");

    // Bad names: 400 naming the name; none is created.
    for (const name of ["bad\u0007name", "a/b", "x".repeat(5000), "   "]) {
      const refused = await post("/connectors", { name, config: sourceConfig(sim.url) });
      assertEquals(
        refused.status,
        400,
        `${JSON.stringify(name.slice(0, 20))}: ${JSON.stringify(refused.body)}`,
      );
      assertEquals(refused.body.error_code, 400);
      assertStringIncludes(refused.body.message, "name");
    }
    // A body of the wrong shape says where the problem is.
    const notObject = await post("/connectors", [{ name: "in-a-list" }]);
    assertEquals(notObject.status, 400);
    assertStringIncludes(notObject.body.message, "request body: ");
    const badConfig = await post("/connectors", { name: "c", config: "not a map" });
    assertEquals(badConfig.status, 400);
    assertStringIncludes(badConfig.body.message, "config: ");
    const viaPut = await daemon.request("PUT", "/connectors/a%2Fb/config", sourceConfig(sim.url));
    assertEquals(viaPut.status, 400);
    assertStringIncludes(viaPut.body.message, "'/'");
    assertEquals((await daemon.request("GET", "/connectors")).body, []);

    // A config that cannot be stored: an error, and nothing registered.
    await Deno.writeTextFile(`${dir}/state`, "a file where the state directory should be");
    const unstored = await post("/connectors", { name: "unstored", config: sourceConfig(sim.url) });
    assertEquals(unstored.status, 500, JSON.stringify(unstored.body));
    assertStringIncludes(unstored.body.message, "could not be stored");
    assertEquals((await daemon.request("GET", "/connectors")).body, []);
    assertEquals((await daemon.request("GET", "/connectors/unstored/status")).status, 404);
    await Deno.remove(`${dir}/state`);

    // Every other endpoint that takes a body reads it within the limit too (a stopped connector: no task's memory).
    const stopped = await post("/connectors", {
      name: "idle",
      config: sourceConfig(sim.url),
      initial_state: "STOPPED",
    });
    assertEquals(stopped.status, 201, JSON.stringify(stopped.body));
    for (
      const [method, path] of [
        ["PUT", "/connectors/idle/config"],
        ["PATCH", "/connectors/idle/config"],
        ["PUT", "/connector-plugins/TableSourceConnector/config/validate"],
        ["PATCH", "/connectors/idle/offsets"],
        ["PUT", "/admin/loggers/root"],
      ]
    ) {
      const peak = peakRss(daemon.process.pid);
      const big = await rawRequest(
        daemon.url,
        `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
        { total, chunk: 64 * 1024 },
      );
      assertEquals(big.status, 413, `${method} ${path}: ${big.text}`);
      assert(big.bytesSent < total / 2, `${method} ${path}: sent ${big.bytesSent} bytes before the answer`);
      const grew = peakRss(daemon.process.pid) - peak;
      // Half the body: buffering it whole grows the peak by at least the body; GC and tasks move it by a few MB.
      assert(grew < total / 2, `${method} ${path}: the daemon's peak RSS grew by ${grew} bytes`);
    }
    // Offsets its task could not resume from are refused (it would read the table again), naming the field.
    const partition = { table: "incident", instance: "127.0.0.1", query_fingerprint: "f632a74e2d20a1f9" };
    for (
      const [entry, expected] of [
        [{ partition, offset: { timestamp: "yesterday", sys_id: 5 } }, "'timestamp' must be a date-time"],
        [{ partition: {}, offset: { timestamp: "2026-11-27 20:56:19", sys_id: "a" } }, "'query_fingerprint'"],
      ] as const
    ) {
      const refused = await daemon.request("PATCH", "/connectors/idle/offsets", { offsets: [entry] });
      assertEquals(refused.status, 400, JSON.stringify(refused.body));
      assertStringIncludes(refused.body.message, expected);
    }
    assertEquals((await daemon.request("GET", "/connectors/idle/offsets")).body, { offsets: [] });
    assertEquals((await daemon.request("DELETE", "/connectors/idle")).status, 204);

    // A running source (sent with a charset, which Connect accepts too): its topic becomes active once data flowed.
    const created = await fetch(`${daemon.url}/connectors`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=UTF-8" },
      body: JSON.stringify({ name: "hard", config: sourceConfig(sim.url) }),
    });
    assertEquals(created.status, 201, await created.text());

    const topics = await waitFor(
      async () => {
        const res = await daemon.request("GET", "/connectors/hard/topics");
        return res.body?.hard?.topics?.length > 0 ? res.body : null;
      },
      60_000,
      "active topics",
    );
    assertEquals(topics, { hard: { topics: ["hard.incident"] } });
    assertEquals((await daemon.request("PUT", "/connectors/hard/topics/reset")).status, 202);
    assertEquals((await daemon.request("GET", "/connectors/hard/topics")).body, { hard: { topics: [] } });
    sim.table("incident").insert({ short_description: "after the reset" });
    await waitFor(
      async () => {
        const res = await daemon.request("GET", "/connectors/hard/topics");
        return res.body?.hard?.topics?.[0] === "hard.incident";
      },
      60_000,
      "the topic active again after a new row",
    );
    assertEquals((await daemon.request("GET", "/connectors/nope/topics")).status, 404);
    assertEquals((await daemon.request("PUT", "/connectors/nope/topics/reset")).status, 404);

    // Loggers: the task logs its sweeps at DEBUG only once its logger is set to DEBUG at runtime.
    const sweepLine = /^\S+Z DEBUG \[connector=hard task=0\] sweep done logger=task /m;
    assert(!sweepLine.test(daemon.output()), "no DEBUG line before the change");
    const loggers = await daemon.request("GET", "/admin/loggers");
    assertEquals(loggers.body.root, { level: "INFO", last_modified: null });
    assertEquals(loggers.body.task.level, "INFO");
    const set = await daemon.request("PUT", "/admin/loggers/task", { level: "debug" });
    assertEquals([set.status, set.body], [200, ["task"]]);
    const task = await daemon.request("GET", "/admin/loggers/task");
    assertEquals(task.body.level, "DEBUG");
    assert(typeof task.body.last_modified === "number", JSON.stringify(task.body));
    // The same level again: Connect still lists the logger; its last_modified stays.
    const again = await daemon.request("PUT", "/admin/loggers/task", { level: "DEBUG" });
    assertEquals([again.status, again.body], [200, ["task"]]);
    assertEquals((await daemon.request("GET", "/admin/loggers/task")).body, task.body);
    await waitFor(() => sweepLine.test(daemon.output()), 30_000, "a DEBUG sweep line from the task");
    // A task started after the change (a new Web Worker) begins with it.
    assertEquals((await daemon.request("POST", "/connectors/hard/tasks/0/restart")).status, 204);
    const afterRestart = daemon.output().length;
    await waitFor(
      () => sweepLine.test(daemon.output().slice(afterRestart)),
      30_000,
      "a DEBUG sweep line from the restarted task",
    );
    assertEquals((await daemon.request("PUT", "/admin/loggers/task", {})).status, 400);
    assertEquals((await daemon.request("PUT", "/admin/loggers/task", { level: "LOUD" })).status, 404);
    assertEquals((await daemon.request("GET", "/admin/loggers/no.such.logger")).status, 404);
    const cluster = await daemon.request("PUT", "/admin/loggers/task?scope=cluster", { level: "INFO" });
    assertEquals(cluster.status, 204);
    assertEquals((await daemon.request("GET", "/admin/loggers/task")).body.level, "INFO");

    // log.format=text: every line starts with the time and the level.
    assertMatch(daemon.output(), /^\S+Z INFO REST API listening on http:\/\/127\.0\.0\.1:\d+ logger=rest /m);
    assertMatch(daemon.output(), /^\S+Z INFO tablesync started logger=daemon /m);
    assertMatch(daemon.output(), /^\S+Z INFO \[connector=hard task=0\] /m);
  } finally {
    await daemon.stop();
    await sim.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("while Kafka cannot be reached, /health and /ready answer 503 without the token, naming Kafka", async () => {
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": `127.0.0.1:${port}`, "rest.auth.token": "probe-token-Vole-12" },
    connectors: [],
  }, { until: "listening" });
  try {
    const health = await daemon.request("GET", "/health");
    assertEquals([health.status, health.body.status], [503, "starting"]);
    assertStringIncludes(health.body.message, `waiting for Kafka at 127.0.0.1:${port}`);
    const ready = await daemon.request("GET", "/ready");
    assertEquals([ready.status, ready.body.status], [503, "not ready"]);
    assertEquals(ready.body.checks.kafka.ready, false);
    assertEquals(ready.body.checks.config.ready, true);
    assertStringIncludes(ready.body.message, "kafka:");
    // Everything else still needs the token, and then says the worker is starting.
    assertEquals((await daemon.request("GET", "/connectors")).status, 401);
    const withToken = await fetch(`${daemon.url}/connectors`, {
      headers: { authorization: "Bearer probe-token-Vole-12" },
    });
    assertEquals(withToken.status, 503);
    const { message } = await withToken.json();
    assertEquals(message, `Worker is still starting up: waiting for Kafka at 127.0.0.1:${port}.`);
    // The status page says so as a page (no data, no token), not as JSON.
    const page = await fetch(`${daemon.url}/ui`);
    assertEquals([page.status, page.headers.get("content-type")], [503, "text/html; charset=utf-8"]);
    assertStringIncludes(await page.text(), `<p class="muted" id="starting">${message}</p>`);
    // In a browser its script keeps saying so (no error line) while it waits for the worker.
    await using browser = await launchChromium();
    const tab = await browser.newPage();
    await tab.goto(`${daemon.url}/ui#token=probe-token-Vole-12`);
    // (the script's own paragraph, after its first refresh, replaced the server's #starting one)
    await tab.locator("#content > p:not([id])", { hasText: message }).waitFor({ timeout: 15_000 });
    assertEquals(await tab.locator("#problem").textContent(), "");
  } finally {
    await daemon.stop();
  }
});
