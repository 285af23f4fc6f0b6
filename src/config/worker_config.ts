/** Analysis of the worker section: typed worker settings with defaults and implied converter settings. */
import { type Analysis, analyze } from "./analyze.ts";
import { type PlaceholderEnv, resolveConfig } from "./placeholders.ts";
import { addError } from "./analyze.ts";
import type { RawConfig } from "./types.ts";
import { impliedWorkerSettings, WORKER_DEFS, WORKER_PASS_THROUGH_PREFIXES } from "./worker.ts";

export function analyzeWorker(raw: RawConfig, env?: PlaceholderEnv): Analysis {
  const { resolved, errors } = resolveConfig(raw, env);
  const withImplied = { ...impliedWorkerSettings(resolved), ...resolved };
  const analysis = analyze([...WORKER_DEFS], withImplied, {
    passThroughPrefixes: WORKER_PASS_THROUGH_PREFIXES,
  });
  for (const [key, message] of errors) addError(analysis, key, message);
  analysis.original = { ...impliedWorkerSettings(raw), ...raw };
  for (const url of (analysis.values["listeners"] as string[] | null) ?? []) {
    try {
      const u = new URL(url);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
    } catch {
      addError(
        analysis,
        "listeners",
        `Invalid value ${url} for configuration listeners: must be an http:// or https:// URL`,
      );
    }
  }
  return analysis;
}

/** The worker's settings as the string map converters and rules read (with implied defaults). */
export function workerStrings(analysis: Analysis): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(analysis.values)) {
    if (v !== null) out[k] = Array.isArray(v) ? v.join(",") : String(v);
  }
  return out;
}
