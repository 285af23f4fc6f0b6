/**
 * Tests and benchmarks assert through one module, tests/support/assert.ts: one set of messages (both sides
 * shown), one way to expect an error (class and message pattern). A file that imports Node's assert module
 * instead fails here with its path.
 */
import { assertEquals } from "../support/assert.ts";
import { imports, sourceFiles } from "./source_imports.ts";

/** The files of `files` (path → text) that import `node:assert` or `node:assert/strict`. */
function importingNodeAssert(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [path, text] of files) {
    if (imports(text).some((i) => /^(node:)?assert(\/strict)?$/.test(i.specifier))) out.push(path);
  }
  return out.sort();
}

Deno.test("no test or benchmark imports Node's assert module: tests/support/assert.ts is the one", async () => {
  const files = new Map([...await sourceFiles("tests"), ...await sourceFiles("bench")]);
  assertEquals(importingNodeAssert(files), []);
});

Deno.test("the check names a file importing node:assert in any form, and no other", () => {
  const files = new Map([
    ["tests/a_test.ts", 'import assert from "node:assert/strict";'],
    ["tests/b_test.ts", 'import { strictEqual } from "node:assert";'],
    ["bench/c.ts", 'import * as assert from "assert";'],
    ["tests/d_test.ts", 'import { assertEquals } from "./support/assert.ts";'],
    ["tests/e_test.ts", '// mentions "node:assert" in a comment only'],
  ]);
  assertEquals(importingNodeAssert(files), ["bench/c.ts", "tests/a_test.ts", "tests/b_test.ts"]);
});
