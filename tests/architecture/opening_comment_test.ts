/**
 * Every file in src/ opens with its comment (docs/architecture.md: "opening comment first in each file saying
 * why"): before its imports, so a reader meets the why before the what. Only `///` directives may come first.
 */
import { assertEquals } from "../support/assert.ts";
import { sourceFiles } from "./source_imports.ts";

/** The files of `files` (path → text) whose first line of code is not a comment. */
function withoutOpeningComment(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [path, text] of files) {
    const first = text.split("\n").find((line) => line.trim() !== "" && !line.startsWith("///"));
    if (first === undefined || !/^\s*(\/\*|\/\/)/.test(first)) out.push(path);
  }
  return out.sort();
}

Deno.test("every file in src/ opens with a comment, before its imports", async () => {
  assertEquals(withoutOpeningComment(await sourceFiles("src")), []);
});

Deno.test("the check names a file without a comment and one whose comment follows its imports", () => {
  const files = new Map([
    ["src/a.ts", '/** Why a. */\nimport { b } from "./b.ts";'],
    ["src/b.ts", '/// <reference lib="deno.worker" />\n/** Why b. */\nexport const b = 1;'],
    ["src/c.ts", 'import { b } from "./b.ts";\n\n/** Why c. */\nexport const c = b;'],
    ["src/d.ts", "export const d = 1;"],
    ["src/e.ts", ""],
  ]);
  assertEquals(withoutOpeningComment(files), ["src/c.ts", "src/d.ts", "src/e.ts"]);
});
