/**
 * README.md and the Markdown files under docs/ (at any depth) are read by users in their own clone: every
 * relative link must reach a file of the repository (and, with a #fragment, a heading of that file), no link may
 * leave the repository (no URL, no path above its root), and the text names no issue or work session and no path
 * outside the repository (the history is in git, not in the docs). Links inside code (fenced blocks, `code
 * spans`) are examples, not links, and are left alone.
 */
import { assertEquals } from "../support/assert.ts";
import { anchorsOf, docProblems, linksOf } from "./markdown_links.ts";

const ROOT = new URL("../../", import.meta.url);

/** README.md and every Markdown file under docs/, at any depth. */
async function userDocs(): Promise<string[]> {
  const files = ["README.md"];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
      if (entry.isDirectory) await walk(`${dir}${entry.name}/`);
      else if (entry.isFile && entry.name.endsWith(".md")) files.push(`${dir}${entry.name}`);
    }
  };
  await walk("docs/");
  return files.sort();
}

Deno.test("every link in README.md and docs/ stays in the repository and resolves, and no issue is named", async () => {
  const files = await userDocs();
  const texts = new Map<string, string>();
  for (const file of files) texts.set(file, await Deno.readTextFile(new URL(file, ROOT)));
  const problems: string[] = [];
  for (const file of files) {
    problems.push(...await docProblems(file, texts.get(file)!, ROOT, (path) => texts.get(path)));
  }
  assertEquals(problems, []);
});

Deno.test("the link check reads links, headings and the words it refuses as GitHub renders them", () => {
  const text = [
    "# Title",
    "## The path of a source row (and `code`)",
    "## Title",
    "See [a](docs/x.md#y), [b](#title-1), [c](https://example.com) and `[d](not/a/link.md)`.",
    "```",
    "[e](neither.md)",
    "```",
  ].join("\n");
  assertEquals(linksOf(text), ["docs/x.md#y", "#title-1", "https://example.com"]);
  assertEquals([...anchorsOf(text)], ["title", "the-path-of-a-source-row-and-code", "title-1"]);
});

Deno.test("the link check refuses a broken file, a broken anchor, a URL, a path above the root, an issue number and a path outside the repository", async () => {
  const root = new URL("file:///repo/");
  const other = "# Other\n## Here it is\n";
  const exists = (path: string) => path === "docs/other.md" ? other : undefined;
  const text = [
    "# Doc",
    "[ok](other.md#here-it-is) [ok too](#doc) [file](../README.md)",
    "[missing](gone.md) [anchor](other.md#not-here) [url](https://example.com/x) [up](../../shared/A.md)",
    "As issue 22 said, and issue-15 too; the previous stop's code.",
    "See ../../shared/spec/a.md and /work/shared/reference/b.md; a graceful stop is fine.",
  ].join("\n");
  const problems = await docProblems("docs/doc.md", text, root, exists, (path) => path === "README.md");
  assertEquals(problems, [
    "docs/doc.md: link gone.md: no file docs/gone.md",
    "docs/doc.md: link other.md#not-here: docs/other.md has no heading #not-here",
    "docs/doc.md: link https://example.com/x leaves the repository",
    "docs/doc.md: link ../../shared/A.md leaves the repository",
    'docs/doc.md:3: names a path outside the repository: "../../shared/A.md"',
    'docs/doc.md:4: names an issue or a work session: "issue 22"',
    'docs/doc.md:4: names an issue or a work session: "issue-15"',
    `docs/doc.md:4: names an issue or a work session: "previous stop"`,
    'docs/doc.md:5: names a path outside the repository: "../../shared/spec/a.md"',
    'docs/doc.md:5: names a path outside the repository: "/work/shared/reference/b.md"',
  ]);
});
