/** log.ts named loggers: levels per name and under it, root, what changed, and the text format. */
import { assertEquals, assertMatch, assertStringIncludes } from "../support/assert.ts";
import {
  applyLogSettings,
  lastModified,
  levelOf,
  logger,
  loggerNames,
  logSettings,
  setLogFormat,
  setLoggerLevel,
  setLogLevel,
  setLogSink,
} from "../../src/observability/log.ts";
import { textLine } from "../../src/observability/log_text.ts";
import { registerSecret } from "../../src/observability/redact.ts";

function capture(): string[] {
  const lines: string[] = [];
  setLogSink((line) => lines.push(line));
  return lines;
}

Deno.test("a level set on a logger applies to it and the loggers under it, at once", () => {
  const lines = capture();
  setLogLevel("info");
  const area = logger("zz_area");
  const sub = logger("zz_area.sub");
  const other = logger("zz_other");
  area.debug("hidden before");
  assertEquals(setLoggerLevel("zz_area", "debug", 1234), ["zz_area", "zz_area.sub"]);
  area.debug("area debug");
  sub.debug("sub debug");
  other.debug("other debug");
  assertEquals(lines.map((l) => JSON.parse(l).msg), ["area debug", "sub debug"]);
  assertEquals([levelOf("zz_area"), levelOf("zz_area.sub.deeper"), levelOf("zz_other")], [
    "debug",
    "debug",
    "info",
  ]);
  assertEquals([lastModified("zz_area"), lastModified("zz_other")], [1234, null]);
  // As Connect: the answer lists every logger the request covered, even unchanged; last_modified stays.
  assertEquals(setLoggerLevel("zz_area", "debug", 5678), ["zz_area", "zz_area.sub"]);
  assertEquals(lastModified("zz_area"), 1234, "nothing changed the second time");
  assertEquals(loggerNames().includes("task"), true, "task loggers are known though they live in workers");
  // root sets every logger
  const changed = setLoggerLevel("root", "warn");
  assertEquals(changed.includes("root") && changed.includes("zz_area") && changed.includes("zz_other"), true);
  assertEquals([levelOf("zz_area"), levelOf("ROOT")], ["warn", "warn"]);
  setLogLevel("info");
  setLogSink((line) => Deno.stderr.writeSync(new TextEncoder().encode(line)));
});

Deno.test("a task thread applies the main thread's settings", () => {
  setLogLevel("info");
  setLoggerLevel("zz_worker", "error");
  const settings = logSettings();
  assertEquals(settings.loggers.zz_worker, "error");
  setLoggerLevel("root", "info");
  applyLogSettings({ ...settings, root: "debug" });
  assertEquals([levelOf("zz_worker"), levelOf("anything")], ["error", "debug"]);
  applyLogSettings({ format: "json", root: "info", loggers: {} });
});

/** The text line of a JSON log entry logged at 2026-11-27T15:00:00.000Z. */
function textOf(entry: Record<string, unknown>): string {
  return textLine(JSON.stringify({ time: "2026-11-27T15:00:00.000Z", ...entry }));
}

Deno.test("log.format=text puts time, level, connector and task first, then the message and key=value", () => {
  const line = textOf({
    level: "info",
    component: "task",
    connector: "x",
    task: 0,
    msg: "sweep done",
    rows: 5,
    table: "incident list",
    err: { type: "Error", message: "boom", stack: "Error: boom\n    at f (a.ts:1:1)" },
  });
  assertEquals(
    line,
    '2026-11-27T15:00:00.000Z INFO [connector=x task=0] sweep done logger=task rows=5 table="incident list" err=boom\n' +
      "    Error: boom\n    at f (a.ts:1:1)\n",
  );
  const lines = capture();
  setLogFormat("text");
  logger("zz_text").info({ n: 1 }, "hello");
  setLogFormat("json");
  assertMatch(lines[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO hello logger=zz_text n=1\n$/);
  assertStringIncludes(textLine("not json"), "not json");
  setLogSink((l) => Deno.stderr.writeSync(new TextEncoder().encode(l)));
});

Deno.test("log.format=text puts a field of several lines (a failed task's trace) on indented lines", () => {
  const trace = "StartupProbeError: no\n    at probe (a.ts:1:1)\nCaused by: Error: deeper";
  const line = textOf({ level: "error", component: "runtime", task: "x-0", msg: "task x-0 failed", trace });
  assertEquals(
    line,
    "2026-11-27T15:00:00.000Z ERROR [task=x-0] task x-0 failed logger=runtime\n" +
      "    trace: StartupProbeError: no\n    at probe (a.ts:1:1)\n    Caused by: Error: deeper\n",
  );
});

Deno.test("log.format=text hides what json hides: a secret split over a stack's lines, credential shapes", () => {
  const secret = 'pw"Lark\nsecond-line-Vole-88';
  registerSecret(secret);
  const lines = capture();
  setLogFormat("text");
  try {
    const err = new Error(`login refused for ${secret}`);
    logger("zz_secret").error(
      {
        err,
        trace: `Error: ${secret}\n    at f`,
        url: "https://user:pass-Heron-9@host/x",
        token: "tok-Quail-3",
      },
      "login failed",
    );
  } finally {
    setLogFormat("json");
    setLogSink((l) => Deno.stderr.writeSync(new TextEncoder().encode(l)));
  }
  const text = lines.join("");
  for (const piece of ['pw"Lark', "second-line-Vole-88", "pass-Heron-9", "tok-Quail-3"]) {
    assertEquals(text.includes(piece), false, `${piece} leaked in:\n${text}`);
  }
  assertStringIncludes(text, "[hidden]");
  assertMatch(text, /^\S+Z ERROR login failed logger=zz_secret /);
});
