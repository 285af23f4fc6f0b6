/**
 * Import circles for the architecture tests: the graph of relative imports among a set of files and the circles
 * in any such graph (of files, or of rooms built from it). One finder, so every structure test reports a circle
 * the same way: its members in import order, from the smallest.
 */
import { resolve, specifiers } from "./source_imports.ts";

/** Relative imports among `files` (path → text): path → the paths of the set it imports, sorted. */
export function importGraph(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const [path, text] of files) {
    const targets = specifiers(text).filter((s) => s.startsWith(".")).map((s) => resolve(path, s));
    edges.set(path, [...new Set(targets.filter((target) => files.has(target)))].sort());
  }
  return edges;
}

/** The circles of a graph, each as its nodes in import order, starting from the smallest; sorted. */
export function circles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components: a component of more than one node (or a node importing itself) is a
  // circle; one path through it is reported.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = stack.splice(stack.indexOf(node));
    if (component.length > 1 || (edges.get(node) ?? []).includes(node)) {
      found.push(pathThrough(new Set(component), edges));
    }
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return found.sort();
}

/** A circle through the smallest node of a strongly connected component, by breadth-first search. */
function pathThrough(
  component: ReadonlySet<string>,
  edges: ReadonlyMap<string, readonly string[]>,
): string[] {
  const start = [...component].sort()[0];
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of edges.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0])!);
        return path;
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}
