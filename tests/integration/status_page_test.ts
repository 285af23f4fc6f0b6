/**
 * The status page (`GET /ui`) against the real daemon with `rest.auth.token` set, read three ways: plain fetch
 * (server-rendered HTML, also as the bare text a text browser shows), Debian's headless chromium with script
 * (in-place refresh, chart and numbers moving during a backfill, pause / resume buttons, a wrong token) and with
 * script off. A sink whose task failed (a record it cannot write, errors.tolerance=none) and a source whose task
 * failed (its table does not exist) are FAILED at the connector level; the sink's name, full of markup and long
 * enough to wrap, shows as text. A sink copying the backfill to a second instance shows records written per
 * second, its errors and dead-lettered records (two records its converter cannot read, errors.tolerance=all) and
 * its consumer lag. The page loads nothing from anywhere but the daemon.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertNotEquals,
  assertStringIncludes,
} from "../support/assert.ts";
import { startKafkaBroker, uniqueName } from "../support/kafka_broker.ts";
import { produceRecords } from "../support/kafka_helpers.ts";
import { startDaemonProcess } from "../support/daemon_process.ts";
import { waitFor } from "../support/wait.ts";
import { launchChromium } from "../support/browser.ts";
import { startSimulator } from "../../src/sim/mod.ts";
import { sourceConnectorConfig } from "../support/source_connector.ts";
import { sinkConnectorConfig } from "../support/sink_connector.ts";

const TOKEN = "ui-Token-8c1f2a";
const PASSWORD = "pw-Ui-5";
// Markup without a "/" (a connector name may not hold one).
const BROKEN = `broken-<i>sink<b>&"q"-${"with-a-long-name-that-wraps-".repeat(6)}end`;
const BROKEN_ESCAPED = BROKEN.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
  .replaceAll('"', "&quot;");

/**
 * Words (text without a space) in `element` that the browser broke over two lines. It runs in the page (through
 * `locator.evaluate`), whose DOM types these tests do not load: hence the `any`.
 */
function wordsBrokenAcrossLines(element: any): string[] {
  const broken: string[] = [];
  const walker = element.ownerDocument.createTreeWalker(element, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent!.trim();
    if (text === "" || text.includes(" ")) continue;
    const range = element.ownerDocument.createRange();
    range.selectNodeContents(node);
    if (range.getClientRects().length > 1) broken.push(text);
  }
  return broken;
}

/** The page as a text browser shows it: no script, no style, no markup, entities decoded, spaces collapsed. */
function textOf(html: string): string {
  return html.replace(/<(script|style|title)[^>]*>[\s\S]*?<\/\1>/g, " ").replace(/<[^>]*>/g, " ")
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&").replace(/\s+/g, " ");
}

Deno.test("the status page: server-rendered, refreshed in place, failed sinks obvious, buttons work", async (t) => {
  // About 16 s of backfill: an ETA estimate needs 10 s of progress, and the chart must move meanwhile.
  const sim = await startSimulator({
    seed: { incident: 8000 },
    users: [`admin:${PASSWORD}`],
    latencyMs: 200,
  });
  // Where the sink "copy" writes the backfill.
  const target = await startSimulator({ seed: { incident: 0 }, users: [`admin:${PASSWORD}`] });
  await using kafka = await startKafkaBroker();
  const topic = uniqueName("ui.incident");
  const textTopic = uniqueName("ui.text");
  const junkTopic = uniqueName("ui.junk");
  const dlq = uniqueName("ui.dlq");
  await kafka.createTopic(topic, 2);
  for (const t of [textTopic, junkTopic, dlq]) await kafka.createTopic(t, 1);
  await produceRecords(kafka.bootstrapServers, textTopic, [{ key: "k", value: "not a JSON object" }]);
  await produceRecords(kafka.bootstrapServers, junkTopic, [
    { key: "j1", value: "{not JSON" },
    { key: "j2", value: "[1," },
  ]);
  const sink = (url: string, topics: string, extra: Record<string, string | number> = {}) =>
    sinkConnectorConfig(url, PASSWORD, { topics, ...extra });
  const daemon = await startDaemonProcess({
    worker: { "bootstrap.servers": kafka.bootstrapServers, "rest.auth.token": "${env:UI_REST_TOKEN}" },
    connectors: [
      {
        name: "incidents",
        config: sourceConnectorConfig(sim.url, PASSWORD, { incident: topic }, {
          "svc.source.batch.size": 100,
        }),
      },
      {
        name: BROKEN,
        config: sink(sim.url, textTopic, {
          "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        }),
      },
      {
        name: "copy",
        config: sink(target.url, `${topic},${junkTopic}`, {
          "svc.sink.not.found.behavior": "create",
          "errors.tolerance": "all",
          "errors.deadletterqueue.topic.name": dlq,
        }),
      },
      {
        name: "no-such-table",
        config: sourceConnectorConfig(sim.url, PASSWORD, { u_missing: uniqueName("ui.missing") }),
      },
    ],
  }, { env: { UI_REST_TOKEN: TOKEN } });
  const authorization = `Bearer ${TOKEN}`;
  await using browser = await launchChromium();
  try {
    await t.step(
      "without the token the page is a form, with it the whole page is rendered on the server",
      async () => {
        const anonymous = await fetch(`${daemon.url}/ui`);
        assertEquals(anonymous.status, 200);
        const form = await anonymous.text();
        assert(!form.includes("incidents"), "the page shows data without the token");
        assertStringIncludes(form, '<form id="login">');
        assertEquals((await fetch(`${daemon.url}/ui/content`)).status, 401);
        assertEquals((await fetch(`${daemon.url}/connectors`)).status, 401);

        const html = await waitFor(
          async () => {
            const text = await (await fetch(`${daemon.url}/ui`, { headers: { authorization } })).text();
            return text.includes(`data-connector="${BROKEN_ESCAPED}" data-health="FAILED"`) &&
                text.includes('data-connector="no-such-table" data-health="FAILED"') &&
                /class="eta">≈ [^<]+ \(estimate\)</.test(text)
              ? text
              : null;
          },
          60_000,
          "a rendered page with the sink failed and an ETA",
        );
        assertStringIncludes(html, '<form id="login" hidden>');
        assertStringIncludes(html, '<noscript><meta http-equiv="refresh"');
        assertStringIncludes(html, '<section class="connector health-RUNNING" data-connector="incidents"');
        assertStringIncludes(html, '<td class="phase">backfill</td>');
        assertMatch(html, /<td class="emitted num">[\d,]+<\/td>/);
        assertStringIncludes(html, `data-connector="${BROKEN_ESCAPED}" data-health="FAILED"`);
        assert(!html.includes("<i>sink<b>"), "a connector name was inserted as HTML");
        // The first ETA shown agrees with the rows remaining at the rate shown (the rate since the last 10 s
        // sample), within a factor of 3: not "1 s" for thousands of rows because the first pages came in a burst.
        const cell = (name: string) =>
          new RegExp(`<tr data-alias="incident">.*?<td class="${name}[^"]*">([^<]*)</td>`).exec(html)?.[1] ??
            "";
        const [rate, remaining] = ["rate", "remaining"].map((n) => Number(cell(n).replaceAll(",", "")));
        const etaSeconds = [...cell("eta").matchAll(/(\d+) (h|min|s)\b/g)]
          .reduce((sum, [, n, unit]) => sum + Number(n) * ({ h: 3600, min: 60, s: 1 }[unit] ?? NaN), 0);
        const implied = remaining / rate;
        assert(
          etaSeconds >= implied / 3 && etaSeconds <= implied * 3,
          `ETA ${cell("eta")} for ${remaining} rows at ${rate} rows/s`,
        );
        // As text (curl, lynx, w3m): the table's row reads in order, each number once.
        assertMatch(
          textOf(html),
          /incident incident 0 backfill [\d.]+ % [\d,]+ [\d.,]+ (peak [\d.,]+\/s )?[\d,]+ ≈ [^(]+ \(estimate\) /,
        );
      },
    );

    await t.step("with script: the chart and the numbers move during the backfill", async () => {
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
      const row = section.locator('tr[data-alias="incident"]');
      const read = () =>
        row.evaluate((tr) => ({
          progress: Number(tr.querySelector("progress")?.getAttribute("value") ?? NaN),
          emitted: Number(tr.querySelector(".emitted")!.textContent!.replaceAll(",", "")),
          rate: Number(tr.querySelector(".rate")!.textContent!.replaceAll(",", "")),
          chart: tr.querySelector("svg.chart polyline")?.getAttribute("points") ?? "",
          eta: tr.querySelector(".eta")!.textContent!,
          phase: tr.querySelector(".phase")!.textContent!,
        }));
      const first = await waitFor(
        async () => {
          const v = await read();
          return v.phase === "backfill" && v.rate > 0 && v.chart !== "" && v.progress > 0 ? v : null;
        },
        60_000,
        "a backfill with a rate, a chart and progress",
      );
      assertMatch(first.eta, /^≈ .+ \(estimate\)$/);
      // Twelve columns under a failed card with a long name: still, no word (an alias, a phase, a number) is broken.
      const brokenWords = await row.evaluate(wordsBrokenAcrossLines);
      assertEquals(brokenWords, []);
      const later = await waitFor(
        async () => {
          const v = await read();
          return v.emitted > first.emitted && v.progress > first.progress && v.chart !== first.chart
            ? v
            : null;
        },
        60_000,
        "the numbers and the chart to move",
      );
      console.log(`rows ${first.emitted} → ${later.emitted}, ${first.rate} → ${later.rate} rows/s`);
      assertNotEquals(later.chart, first.chart);

      const foreign = requested.filter((u) => !u.startsWith(daemon.url) && !u.startsWith("data:"));
      assertEquals(foreign, []);
      assert(requested.some((u) => u.endsWith("/ui/content")), "the page never refreshed in place");
      assert(!page.url().includes(TOKEN), "the token is in the address");
      await page.close();
    });

    await t.step(
      "a sink shows records written per second, errors, dead-lettered records and lag",
      async () => {
        const copy = await waitFor(
          async () => {
            const html = await (await fetch(`${daemon.url}/ui/content`, { headers: { authorization } }))
              .text();
            const row = /<tr data-sink-task="0"><td><span class="wrap">copy-0<\/span><\/td>(.*?)<\/tr>/.exec(
              html,
            );
            const cells = [...(row?.[1] ?? "").matchAll(/<td class="(\w+) num[^"]*">([^<]*)<\/td>/g)];
            const v: Record<string, string> = Object.fromEntries(
              cells.map(([, name, value]) => [name, value]),
            );
            const n = (s: string | undefined) => Number(s?.replaceAll(",", "") ?? NaN);
            return n(v.written) > 0 && n(v.rate) > 0 && n(v.errors) === 2 && n(v.dlq) === 2 && n(v.lag) >= 0
              ? { retried: v.retried, text: textOf(row![0]) }
              : null;
          },
          60_000,
          "the sink copy writing, with 2 errors, 2 dead-lettered records and a consumer lag",
        );
        assertEquals(copy.retried, "0");
        assertMatch(copy.text, /^ copy-0 [\d,]+ [\d.,]+ peak [\d.,]+\/s 2 0 2 [\d,]+ $/);
      },
    );

    await t.step(
      "a failed sink task and a failed source task make their cards FAILED; a long name is text and wraps",
      async () => {
        const page = await browser.newPage({ viewport: { width: 700, height: 900 } });
        await page.goto(`${daemon.url}/ui#token=${TOKEN}`);
        const card = page.locator('section[data-health="FAILED"]', { hasText: "broken-<i>sink" });
        await card.waitFor();
        assertEquals(await card.locator("h2 .name").textContent(), BROKEN);
        assertEquals(await card.locator("h2 .health").textContent(), "FAILED");
        assertEquals(await card.locator('tr[data-task="0"] .state').textContent(), "FAILED");
        assertStringIncludes(await card.locator('tr[data-task="0"] .error').textContent() ?? "", "Error");
        // The task's name wraps (it must), its worker's address does not.
        assertEquals(await card.locator('tr[data-task="0"] td.worker').evaluate(wordsBrokenAcrossLines), []);
        const overflow = await card.evaluate((el) => el.scrollWidth - el.clientWidth);
        assert(overflow <= 0, `the card overflows by ${overflow} px`);
        // The source's connector runs; its only task failed (the startup probe): the card says FAILED anyway.
        const source = page.locator('section[data-connector="no-such-table"]');
        assertEquals(await source.getAttribute("data-health"), "FAILED");
        assertEquals(await source.locator("h2 .state").textContent(), "RUNNING");
        assertEquals(await source.locator("h2 .health").textContent(), "FAILED");
        assertStringIncludes(await source.locator("h2").textContent() ?? "", "1 of 1 tasks failed");
        assertStringIncludes(
          await source.locator('tr[data-task="0"] .error').textContent() ?? "",
          "StartupProbeError: startup probe: table u_missing",
        );
        // A phone's width: the tables scroll inside their cards; no card and not the page spill sideways.
        await page.setViewportSize({ width: 420, height: 900 });
        const spill = await page.locator("html").evaluate((root) =>
          [root, ...root.querySelectorAll("section.connector")].map((el) => el.scrollWidth - el.clientWidth)
        );
        assert(spill.every((px) => px <= 0), `overflow at 420 px: ${spill.join(", ")} px`);
        await page.close();
      },
    );

    await t.step("with script off the page shows everything and reloads itself", async () => {
      const context = await browser.newContext({
        javaScriptEnabled: false,
        extraHTTPHeaders: { authorization },
      });
      const page = await context.newPage();
      await page.goto(`${daemon.url}/ui`);
      const section = page.locator('section[data-connector="incidents"]');
      assertEquals(await section.locator("h2 .state").textContent(), "RUNNING");
      assert(await section.locator('tr[data-alias="incident"] .emitted').isVisible(), "no table row");
      assert(!(await section.locator('button[data-action="pause"]').isVisible()), "buttons without script");
      assertEquals(await page.locator('section[data-health="FAILED"]').count(), 2, "failed cards");
      assert(await page.locator("#reload").isVisible(), "no reload link");
      assert(await page.locator("form#login").isHidden(), "the token form is shown");
      await context.close();
    });
    await t.step("the buttons pause, resume and restart connectors through the REST API", async () => {
      const page = await browser.newPage();
      await page.goto(`${daemon.url}/ui#token=${TOKEN}`);
      const section = page.locator('section[data-connector="incidents"]');
      await section.locator('button[data-action="pause"]').click();
      await section.locator("h2 .state", { hasText: "PAUSED" }).waitFor();
      const status = async () =>
        (await (await fetch(`${daemon.url}/connectors/incidents/status`, { headers: { authorization } }))
          .json())
          .connector.state;
      assertEquals(await status(), "PAUSED");
      // A paused connector is offered Resume, not Pause.
      await section.locator('button[data-action="resume"]').waitFor();
      assertEquals(await section.locator('button[data-action="pause"]').count(), 0);
      await section.locator('button[data-action="resume"]').click();
      await section.locator("h2 .state", { hasText: "RUNNING" }).waitFor();
      assertEquals(await status(), "RUNNING");
      await section.locator('button[data-action="pause"]').waitFor();
      assertEquals(await section.locator('button[data-action="resume"]').count(), 0);
      // Restart (with tasks) goes through too; the failed sink's task restarts and fails again on the same record.
      await page.locator('section[data-health="FAILED"]', { hasText: "broken-<i>sink" })
        .locator('button[data-action="restart"]').click();
      await page.locator("#notice", { hasText: "restart" }).waitFor();
      assertStringIncludes(await page.locator("#notice").textContent() ?? "", "accepted");
      await page.close();
    });

    await t.step("a wrong token: the page says the REST API refused it and asks again", async () => {
      const page = await browser.newPage();
      await page.goto(`${daemon.url}/ui#token=not-${TOKEN}`);
      await page.locator("#problem", { hasText: "refused the token" }).waitFor();
      assertStringIncludes(await page.locator("#problem").textContent() ?? "", "rest.auth.token");
      assert(await page.locator("form#login").isVisible(), "no token form");
      assertEquals(await page.locator("section.connector").count(), 0);
      await page.close();
    });
  } finally {
    const { code } = await daemon.stop("SIGTERM");
    await sim.stop();
    await target.stop();
    assertEquals(code, 0, daemon.output().slice(-3000));
  }
});
