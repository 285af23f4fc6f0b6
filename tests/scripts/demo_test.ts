/**
 * The demo (scripts/demo.ts) as a user runs it: its status page's chart moving after the backfill; in a terminal's
 * foreground process group, stopped with Ctrl-C, or killed outright. Each run starts its own simulator, Kafka broker and daemon, with a small table.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { readLines } from "../support/read_lines.ts";
import { waitFor } from "../support/wait.ts";
import { kafkaBootstrapServers } from "../support/kafka_broker.ts";
import { isAlive } from "../support/owner_watchdog.ts";

const DEMO = new URL("../../scripts/demo.ts", import.meta.url).pathname;

interface Demo {
  process: Deno.ChildProcess;
  lines: string[];
  /** Resolves once the demo and everything that inherited its output (the daemon) closed stdout and stderr. */
  closed: Promise<void>;
  daemonPid: number;
  /** NaN when the demo uses a cluster that already runs. */
  brokerPid: number;
  simulatorUrl: string;
}

/**
 * Starts the demo as a terminal would start a job: a process group of its own, led by the demo. With
 * `bootstrapServers` it uses that cluster instead of starting a broker.
 */
async function startDemo(bootstrapServers?: string): Promise<Demo> {
  const process = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      DEMO,
      "--rows",
      "300",
      "--delete-every",
      "0",
      ...(bootstrapServers ? ["--bootstrap-servers", bootstrapServers] : []),
    ],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  const lines: string[] = [];
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    for await (const line of readLines(stream)) lines.push(line);
  };
  const closed = Promise.all([collect(process.stdout), collect(process.stderr)]).then(() => {});
  await waitForLine(lines, (l) => /\b[1-9]\d* rows emitted/.test(l), "rows to flow");
  const number = (pattern: RegExp) => Number(lines.map((l) => pattern.exec(l)?.[1]).find((m) => m) ?? NaN);
  const demo = {
    process,
    lines,
    closed,
    daemonPid: number(/^starting tablesync \(pid (\d+)/),
    brokerPid: bootstrapServers ? NaN : number(/^Kafka .* \(pid (\d+)\) started/),
    simulatorUrl: lines.map((l) => /^instance simulator on (\S+)/.exec(l)?.[1]).find((u) => u) ?? "",
  };
  assert(isAlive(demo.daemonPid) && (bootstrapServers || isAlive(demo.brokerPid)), lines.join("\n"));
  return demo;
}

/** Waits for a line of the demo's output; on a time-out the error shows the output. */
async function waitForLine(lines: string[], match: (line: string) => boolean, what: string): Promise<void> {
  await waitFor(() => lines.some(match), 90_000, what).catch((e) => {
    throw new Error(`${(e as Error).message}; the demo's output:\n${lines.join("\n")}`);
  });
}

async function untilGone(pids: number[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
}

/** Live processes whose process group is `pgid`. */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") members.push(Number(entry.name));
    } catch { /* exited meanwhile */ }
  }
  return members;
}

const count = (lines: string[], text: string) => lines.filter((l) => l.includes(text)).length;

// This one uses the test run's broker (the demo's own is stopped by the same code whatever the signal path, and
// the next test covers it); the next starts the demo's own broker.
/**
 * Runs the kcat command the demo printed, word for word, plus -e (exit at the end of the topic instead of
 * following it): its lines are "<sys_id> <row as JSON>".
 */
async function runPrintedKcat(lines: string[]): Promise<string[]> {
  const command = lines.map((l) => /^read the topic: (kcat .*)$/.exec(l)?.[1]).find((c) => c);
  assert(command, lines.join("\n"));
  const words = [...command.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]);
  const out = await new Deno.Command(words[0], { args: [...words.slice(1), "-e", "-q"], stdout: "piped" })
    .output();
  assert(out.success, `${command} failed`);
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l !== "");
}

Deno.test("demo: Ctrl-C stops the daemon gracefully with one signal; nothing is left", async () => {
  const demo = await startDemo(await kafkaBootstrapServers());
  // The kcat line it prints reads the topic: keys are sys_ids, values the rows.
  const read = await runPrintedKcat(demo.lines);
  assert(read.length > 0, "kcat read nothing");
  for (const line of read.slice(0, 20)) {
    const [key, ...value] = line.split(" ");
    assert(/^[0-9a-f]{32}$/.test(key), line);
    assertEquals(JSON.parse(value.join(" ")).sys_id, key, line);
  }
  // The status page it prints shows a chart that keeps moving after the backfill (300 rows, read in its first
  // seconds): the last two points (the latest 10 s sample's rate and the live rate) are above zero only because
  // the writer keeps changing rows.
  const page = demo.lines.map((l) => /^status page: (\S+)/.exec(l)?.[1]).find((u) => u);
  assert(page, demo.lines.join("\n"));
  const heights = async () => {
    const points = /<polyline [^>]*points="([^"]+)"/.exec(await (await fetch(page)).text())?.[1] ?? "";
    return points.split(" ").filter((p) => p !== "").map((p) => Number(p.split(",")[1]));
  };
  const chart = await waitFor(
    async () => {
      const ys = await heights();
      // y is 29 at a rate of 0 (the chart is 30 high).
      return ys.length >= 3 && ys.slice(-2).every((y) => y < 29) ? ys : undefined;
    },
    60_000,
    "the status page's chart showing the writer's changes after the backfill",
  ).catch(async (e) => {
    Deno.kill(-demo.process.pid, "SIGINT"); // leave no demo running behind a failure
    await demo.process.status;
    throw e;
  });
  assert(chart.length >= 3);
  // A terminal's Ctrl-C: SIGINT to every process of the foreground group.
  Deno.kill(-demo.process.pid, "SIGINT");
  const status = await demo.process.status;
  await demo.closed;
  const output = demo.lines.join("\n");
  assertEquals(status.code, 0, output);
  assertEquals(count(demo.lines, '"msg":"received SIGTERM"'), 1, output);
  assertEquals(count(demo.lines, '"msg":"tablesync stopped"'), 1, output);
  assertEquals(count(demo.lines, "second signal"), 0, output);
  assertEquals(count(demo.lines, "tablesync exited with code 0"), 1, output);
  assert(!isAlive(demo.daemonPid), `daemon ${demo.daemonPid} still runs`);
  assertEquals(groupMembers(demo.process.pid), []);
});

Deno.test("demo: kill -9 of the demo stops the daemon (gracefully), the broker and the simulator", async () => {
  const demo = await startDemo();
  Deno.kill(demo.process.pid, "SIGKILL");
  await demo.process.status;
  await untilGone([demo.daemonPid, demo.brokerPid]);
  assert(!isAlive(demo.daemonPid), `daemon ${demo.daemonPid} outlived the demo`);
  assert(!isAlive(demo.brokerPid), `broker ${demo.brokerPid} outlived the demo`);
  await demo.closed; // the daemon held the demo's stdout and stderr until it exited
  const output = demo.lines.join("\n");
  assertEquals(count(demo.lines, '"msg":"received SIGTERM"'), 1, output);
  assertEquals(count(demo.lines, '"msg":"tablesync stopped"'), 1, output);
  const simulator = await fetch(`${demo.simulatorUrl}/api/now/table/incident`).then(
    async (r) => (await r.body?.cancel(), r.status),
    (e: Error) => e.message,
  );
  assert(typeof simulator === "string", `the simulator still answers (${simulator})`);
  assertEquals(groupMembers(demo.process.pid), []);
});

Deno.test("demo: --help prints the usage and starts nothing; an unknown flag or a bad number exits 2", async () => {
  const run = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", DEMO, ...args],
      env: { NO_COLOR: "1" },
      stdin: "null",
      // Without the check the demo starts and runs until stopped: end it so the test fails instead of hanging.
      signal: AbortSignal.timeout(60_000),
    }).output();
    return {
      code: out.code,
      text: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr),
    };
  };
  const help = await run("--help");
  assertEquals(help.code, 0, help.text);
  assert(help.text.startsWith("usage: scripts/demo"), help.text);
  assert(!help.text.includes("starting the instance simulator"), help.text);
  const unknown = await run("--second", "5");
  assertEquals(unknown.code, 2, unknown.text);
  assert(unknown.text.includes("'--second'") && unknown.text.includes("usage:"), unknown.text);
  assert(!unknown.text.includes("starting the instance simulator"), unknown.text);
  const bad = await run("--seconds", "soon");
  assertEquals(bad.code, 2, bad.text);
  assert(bad.text.includes('--seconds needs a number of 0 or more, not "soon"'), bad.text);
});
