/**
 * Simulator benchmark: rows per second served in 5000-row pages, and memory for one million seeded rows.
 *
 *   deno run -A bench/sim_throughput.ts [--rows 200000] [--limit 5000] [--memory-rows 1000000]
 *
 * The server runs in this process; the client runs in a separate process (its own core on a 2-core box)
 * and walks the table with the source connector's keyset query, reading and JSON-parsing every page.
 * Memory is measured in another fresh process so that the numbers are not mixed with the throughput run.
 * Figures are printed, never asserted.
 */
import { startSimulator } from "../src/sim/mod.ts";
import { arg } from "./support/processes.ts";

const SELF = new URL(import.meta.url).pathname;

const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;

/** Client process: keyset walk over the whole table, prints JSON figures on stdout. */
async function client(url: string, limit: number): Promise<void> {
  const auth = { authorization: "Basic " + btoa("admin:admin") };
  let cursor: { ts: string; id: string } | undefined;
  let rows = 0, bytes = 0, pages = 0;
  const started = performance.now();
  for (;;) {
    const q = cursor
      ? `sys_updated_on>${cursor.ts}^NQsys_updated_on=${cursor.ts}^sys_id>${cursor.id}^ORDERBYsys_updated_on^ORDERBYsys_id`
      : "ORDERBYsys_updated_on^ORDERBYsys_id";
    const params = new URLSearchParams({
      sysparm_query: q,
      sysparm_limit: String(limit),
      sysparm_no_count: "true",
      sysparm_suppress_pagination_header: "true",
      sysparm_exclude_reference_link: "true",
    });
    const res = await fetch(`${url}/api/now/table/incident?${params}`, {
      headers: { ...auth, "accept-encoding": "identity" },
    });
    const text = await res.text();
    bytes += text.length;
    const page: Array<Record<string, string>> = JSON.parse(text).result;
    rows += page.length;
    pages++;
    if (page.length < limit) break;
    const last = page[page.length - 1];
    cursor = { ts: last.sys_updated_on, id: last.sys_id };
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ rows, pages, seconds, bytes }));
}

/** Memory process: seeds N incident rows and prints memory figures. */
async function memory(n: number): Promise<void> {
  const before = Deno.memoryUsage();
  const started = performance.now();
  const sim = await startSimulator({ seed: { incident: n } });
  const seedSeconds = (performance.now() - started) / 1000;
  (globalThis as { gc?: () => void }).gc?.();
  const after = Deno.memoryUsage();
  await sim.stop();
  console.log(JSON.stringify({ n, seedSeconds, before, after }));
}

async function runChild(args: string[]): Promise<any> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--v8-flags=--expose-gc", SELF, ...args],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`child ${args.join(" ")} failed`);
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}

async function main(): Promise<void> {
  const rows = arg("rows", 200_000);
  const limit = arg("limit", 5000);
  const memoryRows = arg("memory-rows", 1_000_000);

  const seedStart = performance.now();
  const sim = await startSimulator({ seed: { incident: rows } });
  console.log(`seeded ${rows} incident rows in ${((performance.now() - seedStart) / 1000).toFixed(2)} s`);
  try {
    // Warm-up walk (JIT), then the measured walk.
    await runChild(["--client", sim.url, "--limit", String(limit)]);
    sim.counters.reset();
    const cpuBefore = Deno.loadavg();
    const r = await runChild(["--client", sim.url, "--limit", String(limit)]);
    console.log(
      `served ${r.rows} rows in ${r.pages} pages of ${limit}: ${(r.rows / r.seconds).toFixed(0)} rows/s, ` +
        `${(r.bytes / r.seconds / 1048576).toFixed(1)} MB/s of JSON (${
          (r.bytes / r.rows).toFixed(0)
        } bytes/row), ` +
        `rows scanned/returned ${sim.counters.rowsScanned}/${sim.counters.rowsReturned}; load average before ${
          cpuBefore[0].toFixed(2)
        }`,
    );
  } finally {
    await sim.stop();
  }

  if (memoryRows > 0) {
    const m = await runChild(["--memory", String(memoryRows)]);
    console.log(
      `memory for ${m.n} seeded incident rows (seeded in ${m.seedSeconds.toFixed(2)} s): ` +
        `RSS ${mb(m.after.rss)} (+${mb(m.after.rss - m.before.rss)}), heap used ${mb(m.after.heapUsed)}, ` +
        `external ${mb(m.after.external)}`,
    );
  }
}

if (import.meta.main) {
  const clientAt = Deno.args.indexOf("--client");
  const memoryAt = Deno.args.indexOf("--memory");
  if (clientAt >= 0) await client(Deno.args[clientAt + 1], arg("limit", 5000));
  else if (memoryAt >= 0) await memory(Number(Deno.args[memoryAt + 1]));
  else await main();
}
