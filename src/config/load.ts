/**
 * Loads the daemon's config file (YAML or JSON):
 *
 *   worker:     { <worker key>: value, ... }
 *   connectors: [ { name: <name>, config: { <property>: value, ... } }, ... ]
 *
 * Values may be strings, numbers or booleans (a list may be a YAML sequence of them); all are normalised to
 * Kafka Connect's string map. Placeholders stay unresolved here. Every error names the file and the path.
 */
import { connectorNameError } from "./connector_name.ts";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../common/config_error.ts";
import { isPlainObject } from "../common/plain_object.ts";
import type { RawConfig } from "../common/props.ts";

export interface ConnectorEntry {
  name: string;
  config: RawConfig;
}

export interface DaemonConfig {
  path: string;
  worker: RawConfig;
  connectors: ConnectorEntry[];
}

export async function loadConfigFile(path: string): Promise<DaemonConfig> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new ConfigError(`cannot read config file ${path}: ${(e as Error).message}`);
  }
  return parseConfigText(text, path);
}

function parseConfigText(text: string, path: string): DaemonConfig {
  let doc: unknown;
  try {
    doc = path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ConfigError(
      `${path}: not valid ${path.endsWith(".json") ? "JSON" : "YAML"}: ${(e as Error).message}`,
    );
  }
  if (doc === null || doc === undefined) doc = {};
  if (!isPlainObject(doc)) {
    throw new ConfigError(`${path}: the top level must be a mapping with 'worker' and 'connectors'`);
  }
  for (const key of Object.keys(doc)) {
    if (key !== "worker" && key !== "connectors") {
      throw new ConfigError(`${path}: unknown top-level key '${key}'; expected 'worker' and 'connectors'`);
    }
  }
  const worker = normaliseMap(doc.worker ?? {}, `${path}: worker`);
  const list = doc.connectors ?? [];
  if (!Array.isArray(list)) throw new ConfigError(`${path}: 'connectors' must be a list`);
  const names = new Set<string>();
  const connectors = list.map((entry, i) => {
    const where = `${path}: connectors[${i}]`;
    if (!isPlainObject(entry)) throw new ConfigError(`${where} must be a mapping with 'name' and 'config'`);
    for (const key of Object.keys(entry)) {
      if (key !== "name" && key !== "config") {
        throw new ConfigError(`${where}: unknown key '${key}'; expected 'name' and 'config'`);
      }
    }
    if (typeof entry.name !== "string" || entry.name.trim() === "") {
      throw new ConfigError(`${where}.name must be a non-empty string`);
    }
    const name = entry.name.trim();
    const nameError = connectorNameError(name);
    if (nameError) throw new ConfigError(`${where}: ${nameError}`);
    if (names.has(name)) throw new ConfigError(`${where}: connector name '${name}' is used more than once`);
    names.add(name);
    const config = normaliseMap(entry.config ?? {}, `${where} (${name}).config`);
    if (config.name !== undefined && config.name !== name) {
      throw new ConfigError(
        `${where}: Connector name configuration (${config.name}) doesn't match connector name (${name})`,
      );
    }
    return { name, config: { ...config, name } };
  });
  return { path, worker, connectors };
}

/** Normalises a mapping of scalars (or lists of scalars) to Connect's string map. */
function normaliseMap(value: unknown, where: string): RawConfig {
  if (!isPlainObject(value)) throw new ConfigError(`${where} must be a mapping of property names to values`);
  const out: RawConfig = {};
  for (const [key, v] of Object.entries(value)) {
    if (Array.isArray(v)) {
      const bad = v.find((item) => !isScalar(item));
      if (bad !== undefined) {
        throw new ConfigError(`${where}.${key}: list entries must be strings, numbers or booleans`);
      }
      out[key] = v.map(String).join(",");
    } else if (isScalar(v)) {
      out[key] = String(v);
    } else {
      throw new ConfigError(
        `${where}.${key}: value must be a string, number or boolean${
          v === null ? " (remove the key to leave it unset)" : ""
        }`,
      );
    }
  }
  return out;
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}
