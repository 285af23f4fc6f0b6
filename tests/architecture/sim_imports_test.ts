/**
 * The simulator's files import one way: no import cycle inside src/sim, neither between files nor between its
 * rooms (a folder such as store/ or limits/ is one room, a file directly in src/sim is a room of its own).
 * Type-only imports and re-exports count too: a knot of types is a knot all the same. A new cycle fails here
 * with the files or rooms that form it.
 */
import { assertEquals } from "../support/assert.ts";
import { sourceFiles } from "./source_imports.ts";
import { circles, importGraph } from "./import_circles.ts";

/** The room of a file under src/sim: its folder there, or the file itself when it sits directly in src/sim. */
function roomOf(path: string): string {
  const parts = path.split("/").slice(2);
  return parts.length > 1 ? parts[0] + "/" : parts[0];
}

/** Imports between rooms (imports within a room left out). */
function roomImports(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const [path, targets] of importGraph(files)) {
    const room = roomOf(path);
    const out = edges.get(room) ?? [];
    for (const t of targets) if (roomOf(t) !== room && !out.includes(roomOf(t))) out.push(roomOf(t));
    edges.set(room, out);
  }
  return edges;
}

Deno.test("src/sim: no import cycle between files", async () => {
  assertEquals(circles(importGraph(await sourceFiles("src/sim"))), []);
});

Deno.test("src/sim: its rooms import one way (no cycle between folders and top-level files)", async () => {
  assertEquals(circles(roomImports(await sourceFiles("src/sim"))), []);
});

Deno.test("the checks find cycles through type-only imports and re-exports, of files and of rooms", () => {
  const files = new Map([
    ["src/sim/a.ts", 'import type { B } from "./b.ts";'],
    ["src/sim/b.ts", 'export { C } from "./dir/c.ts";'],
    ["src/sim/dir/c.ts", 'import { A } from "../a.ts";\nimport { D } from "./d.ts";'],
    ["src/sim/dir/d.ts", 'import { log } from "../../observability/log.ts";'],
  ]);
  assertEquals(circles(importGraph(files)), [["src/sim/a.ts", "src/sim/b.ts", "src/sim/dir/c.ts"]]);
  assertEquals(circles(roomImports(files)), [["a.ts", "b.ts", "dir/"]]);
  // Rooms knot even when files do not: a.ts imports dir/c.ts while dir/d.ts imports a.ts.
  const rooms = new Map([
    ["src/sim/a.ts", 'import { C } from "./dir/c.ts";'],
    ["src/sim/dir/c.ts", "export const C = 1;"],
    ["src/sim/dir/d.ts", 'import type { A } from "../a.ts";'],
  ]);
  assertEquals(circles(importGraph(rooms)), []);
  assertEquals(circles(roomImports(rooms)), [["a.ts", "dir/"]]);
  rooms.set("src/sim/dir/d.ts", "export const D = 1;");
  assertEquals(circles(roomImports(rooms)), []);
});
