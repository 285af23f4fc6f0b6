/**
 * The simulator's files import one way: no import cycle inside src/sim, neither between files nor between its
 * rooms (a folder such as store/ or limits/ is one room, a file directly in src/sim is a room of its own).
 * Type-only imports and re-exports count too: a knot of types is a knot all the same. A new cycle fails here
 * with the files or rooms that form it.
 */
import { assertEquals } from "../support/assert.ts";
import { resolve, sourceFiles, specifiers } from "./source_imports.ts";

/** Imports among `files` (path → text): path → the paths of the set it imports. */
function fileImports(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const [path, text] of files) {
    const targets = specifiers(text)
      .filter((s) => s.startsWith("."))
      .map((s) => resolve(path, s))
      .filter((t) => files.has(t));
    edges.set(path, [...new Set(targets)]);
  }
  return edges;
}

/** The room of a file under src/sim: its folder there, or the file itself when it sits directly in src/sim. */
function roomOf(path: string): string {
  const parts = path.split("/").slice(2);
  return parts.length > 1 ? parts[0] + "/" : parts[0];
}

/** Imports between rooms (imports within a room left out). */
function roomImports(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const [path, targets] of fileImports(files)) {
    const room = roomOf(path);
    const out = edges.get(room) ?? [];
    for (const t of targets) if (roomOf(t) !== room && !out.includes(roomOf(t))) out.push(roomOf(t));
    edges.set(room, out);
  }
  return edges;
}

/**
 * The cycles of a graph, each as its nodes sorted: Tarjan's strongly connected components of more than one node
 * (or a node that reaches itself).
 */
function cycles(edges: ReadonlyMap<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => a[0].localeCompare(b[0]));
}

Deno.test("src/sim: no import cycle between files", async () => {
  assertEquals(cycles(fileImports(await sourceFiles("src/sim"))), []);
});

Deno.test("src/sim: its rooms import one way (no cycle between folders and top-level files)", async () => {
  assertEquals(cycles(roomImports(await sourceFiles("src/sim"))), []);
});

Deno.test("the checks find cycles through type-only imports and re-exports, of files and of rooms", () => {
  const files = new Map([
    ["src/sim/a.ts", 'import type { B } from "./b.ts";'],
    ["src/sim/b.ts", 'export { C } from "./dir/c.ts";'],
    ["src/sim/dir/c.ts", 'import { A } from "../a.ts";\nimport { D } from "./d.ts";'],
    ["src/sim/dir/d.ts", 'import { log } from "../../observability/log.ts";'],
  ]);
  assertEquals(cycles(fileImports(files)), [["src/sim/a.ts", "src/sim/b.ts", "src/sim/dir/c.ts"]]);
  assertEquals(cycles(roomImports(files)), [["a.ts", "b.ts", "dir/"]]);
  // Rooms knot even when files do not: a.ts imports dir/c.ts while dir/d.ts imports a.ts.
  const rooms = new Map([
    ["src/sim/a.ts", 'import { C } from "./dir/c.ts";'],
    ["src/sim/dir/c.ts", "export const C = 1;"],
    ["src/sim/dir/d.ts", 'import type { A } from "../a.ts";'],
  ]);
  assertEquals(cycles(fileImports(rooms)), []);
  assertEquals(cycles(roomImports(rooms)), [["a.ts", "dir/"]]);
  rooms.set("src/sim/dir/d.ts", "export const D = 1;");
  assertEquals(cycles(roomImports(rooms)), []);
});
