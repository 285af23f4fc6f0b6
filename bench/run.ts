/**
 * `deno task bench`: runs every benchmark one after the other (each in its own process, so they never compete
 * for the two cores) and prints their figures. Benchmarks print; nothing here is asserted.
 */
const BENCHES = [
  ["sim_throughput.ts", ["--rows", "200000", "--memory-rows", "1000000"]],
  ["throttler.ts", []],
  ["kafka_idle_cpu.ts", []],
  ["daemon_idle_cpu.ts", []],
  ["source_e2e.ts", ["--rows", "100000"]],
  ["source_paging.ts", ["--rows", "20000", "--batch", "1000"]],
  ["source_hidden_head.ts", ["--rows", "4000", "--head", "1200", "--batch", "100", "--latency-ms", "100"]],
  ["parallel_backfill.ts", ["--rows", "40000", "--batch", "1000", "--latency-ms", "400"]],
  ["resnapshot.ts", ["--rows", "40000", "--batch", "1000", "--latency-ms", "400"]],
  ["sink_e2e.ts", ["--records", "4000", "--latency-ms", "20", "--permits", "8"]],
  ["group_failover.ts", []],
  ["instance_concurrency.ts", []],
  // Its defaults, as docs/performance.md quotes them: two runs of one compressed hour each (about 6 minutes).
  ["instance_budget.ts", []],
] as const;

const only = Deno.args.length > 0 ? new Set(Deno.args) : null;
let failed = 0;
for (const [file, args] of BENCHES) {
  if (only && !only.has(file) && !only.has(file.replace(/\.ts$/, ""))) continue;
  console.log(`\n=== ${file} ${args.join(" ")}`);
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", new URL(file, import.meta.url).pathname, ...args],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) {
    failed++;
    console.log(`=== ${file} exited with ${code}`);
  }
}
if (failed > 0) Deno.exit(1);
