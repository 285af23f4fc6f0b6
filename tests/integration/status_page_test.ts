/**
 * The status page (`GET /ui`) in a real headless browser (Debian's chromium through playwright-core) against the
 * real daemon with `rest.auth.token` set: the page asks for the token, then shows the running connector, its task
 * and worker, and a progress bar that moves during a backfill; it loads nothing from anywhere but the daemon.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { startDaemonProcess, waitFor } from "../support/daemon_process.ts";
import { launchChromium } from "../support/browser.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";

const TOKEN = "ui-Token-8c1f2a";

Deno.test("the status page shows the running connector and a progress bar that moves during a backfill", async () => {
  // About 16 s of backfill: an ETA estimate needs 10 s of progress.
  const sim = await startSimulator({ seed: { incident: 8000 }, users: ["admin:pw-Ui-5"], latencyMs: 200 });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("ui.incident");
  await kafka.createTopic(topic, 2);
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers, "rest.auth.token": "${env:UI_REST_TOKEN}" },
    connectors: [{
      name: "incidents",
      config: sourceConnectorConfig(sim.url, "pw-Ui-5", { incident: topic }, {
        "svc.source.batch.size": 100,
      }),
    }],
  }, { env: { UI_REST_TOKEN: TOKEN } });
  await using browser = await launchChromium();
  try {
    // The page is public, its data is not.
    const plain = await fetch(`${daemon.url}/ui`);
    assertEquals(plain.status, 200);
    assert(!(await plain.text()).includes("incidents"), "the page itself carries data");
    assertEquals((await fetch(`${daemon.url}/connectors`)).status, 401);

    const page = await browser.newPage();
    const requested: string[] = [];
    page.on("request", (r) => requested.push(r.url()));
    await page.goto(`${daemon.url}/ui`);
    await page.waitForSelector("form#login:not([hidden])");
    await page.fill("#token", TOKEN);
    await page.click("form#login button");

    const section = page.locator('section[data-connector="incidents"]');
    await section.waitFor();
    assertEquals(await section.locator("h2 .state").textContent(), "RUNNING");
    await section.locator('tr[data-task="0"] .state', { hasText: "RUNNING" }).waitFor();
    const workerCell = await section.locator('tr[data-task="0"] td').nth(2).textContent();
    assert(workerCell && /:\d+$/.test(workerCell), `worker id ${workerCell}`);

    const bar = section.locator('progress.table-progress[data-alias="incident"]');
    const valueOf = () =>
      bar.evaluate((el) => el.hasAttribute("value") ? Number(el.getAttribute("value")) : null);
    const first = await waitFor(
      async () => {
        const v = await valueOf();
        return v !== null && v > 0 && v < 100 ? v : null;
      },
      60_000,
      "a partly filled progress bar",
    );
    assertEquals(await section.locator('tr[data-alias="incident"] .phase').textContent(), "backfill");
    const later = await waitFor(
      async () => {
        const v = await valueOf();
        return v !== null && v > first ? v : null;
      },
      60_000,
      "the progress bar to move",
    );
    console.log(`progress bar moved from ${first} % to ${later} %`);
    await waitFor(
      async () => /\d/.test(await section.locator('tr[data-alias="incident"] .eta').textContent() ?? ""),
      60_000,
      "an ETA shown",
    );

    const foreign = requested.filter((u) => !u.startsWith(daemon.url) && !u.startsWith("data:"));
    assertEquals(foreign, []);
    assert(
      requested.some((u) => u.includes("/connectors/incidents/tables")),
      "the page never read the tables",
    );
    assert(!page.url().includes(TOKEN), "the token is in the address");
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    assertEquals(code, 0, daemon.output().slice(-3000));
  }
});
