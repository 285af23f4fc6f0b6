/** Reading src/ for the architecture tests: the .ts files under a folder and the relative imports of a file. */

/** `import … from "x"`, `export … from "x"` (type-only ones too) and `import("x")`. */
const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\b[^"'`;]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** Every specifier a file's text imports or re-exports. */
export function specifiers(text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((m) => m[1] ?? m[2]);
}

/** The path a relative specifier names, seen from the file at `from` (both relative to the same root). */
export function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** The .ts files under `dir` of the repository (e.g. "src/sim"), path relative to the repository → text. */
export async function sourceFiles(dir: string): Promise<Map<string, string>> {
  const root = new URL("../../", import.meta.url).pathname;
  const out = new Map<string, string>();
  const walk = async (path: string) => {
    for await (const entry of Deno.readDir(`${root}${path}`)) {
      const child = `${path}/${entry.name}`;
      if (entry.isDirectory) await walk(child);
      else if (entry.name.endsWith(".ts")) out.set(child, await Deno.readTextFile(`${root}${child}`));
    }
  };
  await walk(dir);
  return out;
}
