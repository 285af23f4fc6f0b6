/**
 * What tests/docs/links_test.ts checks in a Markdown file, read as GitHub renders it: the links outside code,
 * the anchors its headings make, and the problems of one file (a link that leaves the repository or resolves to
 * no file or heading; a name of an issue or a work session, or a path outside the repository, in the text).
 */

/** Words the user docs do not use: the history of the work is in git. */
const WORK_WORDS = /\bissues?[- ]?#?\d+|\bthe issue's\b|\b(?:this|previous|next|last|earlier) stop\b/gi;

/** Paths of the machine the work was done on, outside any clone (`../shared/…`, `/work/…`), even in code. */
const OUTSIDE_PATHS = /(?:\.\.\/)+shared\/(?:[\w./-]*[\w/-])?|\/work\/(?:[\w./-]*[\w/-])?/g;

/** A URL scheme (`https:`, `mailto:`): such a link leaves the repository. */
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The text without fenced code blocks (their lines blanked, so line numbers hold). */
function withoutFences(text: string): string {
  let fence: string | null = null;
  return text.split("\n").map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker[0];
      return "";
    }
    if (fence !== null) {
      if (marker && marker[0] === fence) fence = null;
      return "";
    }
    return line;
  }).join("\n");
}

/** The text outside code: no fenced blocks, no code spans (which may run over a line break). */
function prose(text: string): string {
  return withoutFences(text).replace(/(`+)[\s\S]*?\1/g, "");
}

/** Link targets in the order they appear: inline links and images, reference definitions, bare URLs. */
export function linksOf(text: string): string[] {
  const found: { at: number; target: string }[] = [];
  const plain = prose(text);
  for (const m of plain.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    found.push({ at: m.index!, target: m[1] });
  }
  for (const m of plain.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) {
    found.push({ at: m.index!, target: m[1] });
  }
  // Bare URLs GitHub would autolink, unless already the target of a link found above.
  for (const m of plain.matchAll(/(?<![(<\w])https?:\/\/\w[^\s)>\]]*/g)) {
    found.push({ at: m.index!, target: m[0] });
  }
  for (const m of plain.matchAll(/<(https?:\/\/[^>\s]+)>/g)) found.push({ at: m.index!, target: m[1] });
  return found.sort((a, b) => a.at - b.at).map((f) => f.target);
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\- _]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a file's headings (a repeated one gets -1, -2, ... as on GitHub) and of its `<a id>`s. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(text).split("\n")) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  return anchors;
}

/** `path` (relative to the repository's root) with `.` and `..` resolved; null when it climbs above the root. */
function normalise(path: string): string | null {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join("/") + (path.endsWith("/") && parts.length > 0 ? "/" : "");
}

async function existsOnDisk(root: URL, path: string): Promise<boolean> {
  try {
    await Deno.stat(new URL(path, root));
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/**
 * Every problem of one file, `file` being its path from the repository's root: `readDoc` gives the text of a
 * Markdown file already read (else it is read from `root`), `exists` whether another path is a file or folder.
 */
export async function docProblems(
  file: string,
  text: string,
  root: URL,
  readDoc: (path: string) => string | undefined,
  exists: (path: string) => boolean | Promise<boolean> = (path) => existsOnDisk(root, path),
): Promise<string[]> {
  const problems: string[] = [];
  const folder = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
  for (const link of linksOf(text)) {
    if (SCHEME.test(link) || link.startsWith("//")) {
      problems.push(`${file}: link ${link} leaves the repository`);
      continue;
    }
    const hash = link.indexOf("#");
    const pathPart = decodeURIComponent(hash >= 0 ? link.slice(0, hash) : link);
    const fragment = hash >= 0 ? decodeURIComponent(link.slice(hash + 1)) : "";
    const target = pathPart === ""
      ? file
      : pathPart.startsWith("/")
      ? normalise(pathPart)
      : normalise(folder + pathPart);
    if (target === null) {
      problems.push(`${file}: link ${link} leaves the repository`);
      continue;
    }
    const targetText = pathPart === "" ? text : readDoc(target);
    if (targetText === undefined && !(await exists(target))) {
      problems.push(`${file}: link ${link}: no file ${target}`);
      continue;
    }
    if (fragment === "" || !target.endsWith(".md")) continue;
    const anchors = anchorsOf(targetText ?? await Deno.readTextFile(new URL(target, root)));
    if (!anchors.has(fragment)) problems.push(`${file}: link ${link}: ${target} has no heading #${fragment}`);
  }
  text.split("\n").forEach((line, index) => {
    for (const m of line.matchAll(WORK_WORDS)) {
      problems.push(`${file}:${index + 1}: names an issue or a work session: "${m[0]}"`);
    }
    for (const m of line.matchAll(OUTSIDE_PATHS)) {
      problems.push(`${file}:${index + 1}: names a path outside the repository: "${m[0]}"`);
    }
  });
  return problems;
}
