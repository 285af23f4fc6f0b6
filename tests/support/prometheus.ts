/**
 * A strict reader of the Prometheus text format (0.0.4) for tests: every sample line must parse, every family
 * must have a TYPE, and histograms must be whole (cumulative buckets ending with +Inf equal to _count).
 */
import { assert } from "./assert.ts";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  types: Map<string, string>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ")) continue;
    if (line.startsWith("# TYPE ")) {
      const [name, type] = line.slice(7).split(" ");
      assert(!types.has(name), `TYPE of ${name} twice`);
      types.set(name, type);
      continue;
    }
    const match = SAMPLE.exec(line);
    assert(match, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const text = match[3] ?? "";
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < text.length) {
      const label = LABEL.exec(text);
      assert(label, `bad labels in: ${line}`);
      labels[label[1]] = label[2].replace(/\\(.)/g, (_, c) => c === "n" ? "\n" : c);
    }
    const value = match[4] === "+Inf" ? Infinity : Number(match[4]);
    assert(!Number.isNaN(value) || match[4] === "NaN", `bad value in: ${line}`);
    const family = familyOf(match[1], types);
    assert(family, `no TYPE for ${match[1]}`);
    samples.push({ name: match[1], labels, value });
  }
  return { samples, types };
}

function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, "");
  return types.get(base) === "histogram" ? base : undefined;
}

/** The samples of `name` whose labels include `match`. */
export function samplesOf(e: Exposition, name: string, match: Record<string, string> = {}): Sample[] {
  return e.samples.filter((s) =>
    s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v)
  );
}

export function sumOf(e: Exposition, name: string, match: Record<string, string> = {}): number {
  return samplesOf(e, name, match).reduce((n, s) => n + s.value, 0);
}

export interface Histogram {
  labels: Record<string, string>;
  buckets: { le: number; count: number }[];
  sum: number;
  count: number;
}

/**
 * Every series of histogram `name`, checked: buckets in ascending `le`, counts never decreasing, the last
 * bucket +Inf and equal to `_count`, a `_sum`.
 */
export function histograms(e: Exposition, name: string): Histogram[] {
  assert(e.types.get(name) === "histogram", `${name} is typed ${e.types.get(name)}, not histogram`);
  const series = new Map<string, Histogram>();
  const keyOf = (labels: Record<string, string>) =>
    JSON.stringify(Object.entries(labels).filter(([k]) => k !== "le").sort());
  for (const s of samplesOf(e, `${name}_bucket`)) {
    const key = keyOf(s.labels);
    const { le: _, ...labels } = s.labels;
    const h = series.get(key) ?? { labels, buckets: [], sum: NaN, count: NaN };
    series.set(key, h);
    h.buckets.push({ le: s.labels.le === "+Inf" ? Infinity : Number(s.labels.le), count: s.value });
  }
  for (const s of samplesOf(e, `${name}_sum`)) series.get(keyOf(s.labels))!.sum = s.value;
  for (const s of samplesOf(e, `${name}_count`)) series.get(keyOf(s.labels))!.count = s.value;
  for (const h of series.values()) {
    const where = `${name}${JSON.stringify(h.labels)}`;
    for (let i = 1; i < h.buckets.length; i++) {
      assert(h.buckets[i].le > h.buckets[i - 1].le, `${where}: buckets out of order`);
      assert(h.buckets[i].count >= h.buckets[i - 1].count, `${where}: bucket counts decrease`);
    }
    assert(h.buckets.at(-1)?.le === Infinity, `${where}: no +Inf bucket`);
    assert(
      h.buckets.at(-1)!.count === h.count,
      `${where}: +Inf bucket ${h.buckets.at(-1)!.count} ≠ _count ${h.count}`,
    );
    assert(Number.isFinite(h.sum) && h.sum >= 0, `${where}: _sum ${h.sum}`);
  }
  return [...series.values()];
}
