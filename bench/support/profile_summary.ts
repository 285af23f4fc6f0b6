/**
 * Summarises a V8 .cpuprofile: self time per function (top N) and total time per file, so a profile can be read
 * without DevTools.   deno run -A bench/support/profile_summary.ts <file.cpuprofile> [--top 40]
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const file = Deno.args[0];
const topAt = Deno.args.indexOf("--top");
const top = topAt >= 0 ? Number(Deno.args[topAt + 1]) : 40;
const profile = JSON.parse(await Deno.readTextFile(file)) as {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
};
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const perFunction = new Map<string, number>();
const perFile = new Map<string, number>();
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const short = url.replace(/^.*\/(src|bench|node_modules|npm)\//, "$1/") || "(native)";
  const name = `${functionName || "(anonymous)"} ${short}:${lineNumber + 1}`;
  perFunction.set(name, (perFunction.get(name) ?? 0) + us);
  const group = short.replace(/^(npm\/[^/]+\/[^/]+\/[^/]+).*$/, "$1");
  perFile.set(group, (perFile.get(group) ?? 0) + us);
}
const pct = (us: number) => `${(us / total * 100).toFixed(1).padStart(5)} %`;
console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled`);
console.log("\nself time by function:");
for (const [name, us] of [...perFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${pct(us)}  ${name}`);
}
console.log("\nself time by file:");
for (const [name, us] of [...perFile].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${pct(us)}  ${name}`);
}

// --callers NAME: the call paths (3 frames up) under which functions named NAME spent their self time.
const callersAt = Deno.args.indexOf("--callers");
if (callersAt >= 0) {
  const wanted = Deno.args[callersAt + 1];
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const paths = new Map<string, number>();
  for (const [id, us] of selfUs) {
    if (byId.get(id)!.callFrame.functionName !== wanted) continue;
    const chain: string[] = [];
    for (let at = parent.get(id), depth = 0; at !== undefined && depth < 6; at = parent.get(at), depth++) {
      const f = byId.get(at)!.callFrame;
      chain.push(`${f.functionName || "(anon)"}@${f.url.split("/").pop()}:${f.lineNumber + 1}`);
    }
    const key = chain.join(" < ");
    paths.set(key, (paths.get(key) ?? 0) + us);
  }
  console.log(`\ncallers of ${wanted}:`);
  for (const [path, us] of [...paths].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    console.log(`${pct(us)}  ${path}`);
  }
}

// --inclusive: time spent in each function including what it called (top N), to see which step costs what.
if (Deno.args.includes("--inclusive")) {
  const inclusive = new Map<string, number>();
  const walk = (id: number, onStack: Set<string>): number => {
    const node = byId.get(id)!;
    let us = selfUs.get(id) ?? 0;
    const f = node.callFrame;
    const name = `${f.functionName || "(anon)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`;
    const fresh = !onStack.has(name);
    if (fresh) onStack.add(name);
    for (const c of node.children ?? []) us += walk(c, onStack);
    if (fresh) {
      onStack.delete(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
    return us;
  };
  walk(profile.nodes[0].id, new Set());
  console.log("\ninclusive time by function:");
  for (const [name, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${pct(us)}  ${name}`);
  }
}
