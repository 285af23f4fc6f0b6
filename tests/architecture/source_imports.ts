/** Reading src/ for the architecture tests: the .ts files under a folder and the relative imports of a file. */

/** `import … from "x"`, `export … from "x"` (type-only ones too), `import("x")` and `import "x"`. */
const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\b[^"'`;]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s*["']([^"']+)["']/g;

/** Every specifier a file's text imports or re-exports. */
export function specifiers(text: string): string[] {
  return imports(text).map((i) => i.specifier);
}

/** An import or re-export; `typeOnly` when it is `import type`/`export type` (erased: no code is loaded). */
export interface Import {
  readonly specifier: string;
  readonly typeOnly: boolean;
}

/** Every import and re-export of a file's text. */
export function imports(text: string): Import[] {
  return [...text.matchAll(SPECIFIER)].map((m) => ({
    specifier: m[1] ?? m[2] ?? m[3],
    typeOnly: m[1] !== undefined && /^\s*(?:import|export)\s+type\b/.test(m[0]),
  }));
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
