/** Analysis of the worker section: typed worker settings with defaults and implied converter settings. */
import { type Analysis, analyze } from "./analyze.ts";
import { type PlaceholderEnv, registerResolvedSecrets, resolveConfig } from "./placeholders.ts";
import { addError } from "./analyze.ts";
import type { RawConfig } from "../common/props.ts";
import { CONNECT_WORKER_KEYS, CONNECT_WORKER_PREFIXES, WORKER_CLIENT_KEYS } from "./connect_worker_keys.ts";
import {
  impliedWorkerSettings,
  WORKER_DEFS,
  WORKER_GROUP_KEYS,
  WORKER_PASS_THROUGH_PREFIXES,
} from "./worker.ts";

export function analyzeWorker(raw: RawConfig, env?: PlaceholderEnv): Analysis {
  const { resolved, errors, fromPlaceholders } = resolveConfig(raw, env);
  registerResolvedSecrets(WORKER_DEFS, fromPlaceholders);
  const withImplied = { ...impliedWorkerSettings(resolved), ...environmentDefaults(resolved), ...resolved };
  // Kafka Connect's own worker keys are accepted (and ignored where tablesync has no use for them), and so are the
  // client keys our Kafka clients read; any other key is a near miss of one of ours (an error with a suggestion)
  // or a warning.
  const analysis = analyze([...WORKER_DEFS], withImplied, {
    passThroughPrefixes: [...WORKER_PASS_THROUGH_PREFIXES, ...CONNECT_WORKER_PREFIXES],
    acceptedKeys: [...CONNECT_WORKER_KEYS, ...WORKER_CLIENT_KEYS],
    warnUnknownKeys: true,
  });
  for (const [key, message] of errors) addError(analysis, key, message);
  analysis.original = { ...impliedWorkerSettings(raw), ...environmentDefaults(raw), ...raw };
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
  checkGroupMode(analysis);
  checkExactlyOnce(analysis);
  return analysis;
}

/**
 * Defaults a deployment sets through the environment, for keys the file leaves unset: $TABLESYNC_LISTENERS is the
 * listeners (the container image sets http://0.0.0.0:8083, so a published port reaches the REST API; elsewhere the
 * default stays on the loopback interface).
 */
function environmentDefaults(raw: RawConfig): RawConfig {
  let listeners: string | undefined;
  try {
    listeners = Deno.env.get("TABLESYNC_LISTENERS");
  } catch { /* no env permission: no environment defaults */ }
  return raw["listeners"] === undefined && listeners ? { listeners } : {};
}

/** Transactions write offsets into a topic of the same cluster as the records: the file store cannot take part. */
function checkExactlyOnce(analysis: Analysis): void {
  const mode = analysis.values["exactly.once.source.support"];
  if (mode !== "enabled" && mode !== "preparing") return;
  if (!analysis.values["offset.storage.topic"]) {
    addError(
      analysis,
      "exactly.once.source.support",
      `exactly.once.source.support=${mode} needs offset.storage.topic: source offsets must be written in the ` +
        `same Kafka transaction as the records, which the file store (offset.storage.file.filename) cannot do`,
    );
  }
}

/** Group mode (group.id) needs the three shared topics and heartbeats well inside the session timeout. */
function checkGroupMode(analysis: Analysis): void {
  const values = analysis.values;
  if (!values["group.id"]) return; // unset or blank: standalone
  for (const key of ["offset.storage.topic", "config.storage.topic", "status.storage.topic"]) {
    if (!values[key]) {
      addError(
        analysis,
        key,
        `Missing required configuration "${key}": group.id is set (group mode), which keeps source offsets, ` +
          `connector configs and statuses in topics every member shares`,
      );
    }
  }
  const topics = ["offset.storage.topic", "config.storage.topic", "status.storage.topic"]
    .map((k) => values[k]).filter((t) => t);
  if (new Set(topics).size < topics.length) {
    addError(
      analysis,
      "config.storage.topic",
      "offset.storage.topic, config.storage.topic and status.storage.topic must be three different topics",
    );
  }
  const heartbeat = values["heartbeat.interval.ms"] as number;
  const session = values["session.timeout.ms"] as number;
  if (typeof heartbeat === "number" && typeof session === "number" && heartbeat >= session) {
    addError(
      analysis,
      "heartbeat.interval.ms",
      `Invalid value ${heartbeat} for configuration heartbeat.interval.ms: must be below session.timeout.ms (${session})`,
    );
  }
}

/** The worker's settings as the string map converters and rules read (with implied defaults). */
export function workerStrings(analysis: Analysis): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(analysis.values)) {
    if (v !== null) out[k] = Array.isArray(v) ? v.join(",") : String(v);
  }
  return out;
}

/** The worker's settings a task's Kafka clients start from: all but the worker group's own keys. */
export function taskWorkerStrings(analysis: Analysis): Record<string, string> {
  const out = workerStrings(analysis);
  for (const key of WORKER_GROUP_KEYS) delete out[key];
  return out;
}
