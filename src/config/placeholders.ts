/**
 * Kafka's config-provider placeholders: `${env:NAME}` and `${file:PATH:KEY}` (PATH a Java properties file).
 * Configs are stored and returned with placeholders unresolved; they are resolved when a connector starts
 * or is validated. A value resolved into a PASSWORD-typed property, or into a key tablesync does not define (a
 * pass-through client setting such as `producer.sasl.jaas.config`), is registered as a secret, so it can never
 * be echoed (`registerResolvedSecrets`). Values of defined non-secret properties (a listener's port, a table
 * name) are not: hiding them would also hide every unrelated text that happens to contain them, as Kafka
 * Connect, which masks PASSWORD types only, does not.
 */
import { registerSecret } from "../observability/redact.ts";
import type { PropertyDef } from "./def.ts";
import { ConfigError } from "../common/config_error.ts";

/** Kafka's ConfigTransformer pattern: ${provider:[path:]key}. */
const PLACEHOLDER = /\$\{([^}]*?):(?:([^}]*?):)?([^}]*?)\}/g;

export interface PlaceholderEnv {
  env(name: string): string | undefined;
  readFile(path: string): string;
}

const DENO_PLACEHOLDER_ENV: PlaceholderEnv = {
  env: (name) => Deno.env.get(name),
  readFile: (path) => Deno.readTextFileSync(path),
};

export function hasPlaceholder(value: string): boolean {
  PLACEHOLDER.lastIndex = 0;
  return PLACEHOLDER.test(value);
}

/** Parses a Java properties file's `key=value` / `key: value` lines (comments with # or !, no continuation lines). */
function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith("!")) continue;
    const m = /^([^=:\s]+)\s*[=:\s]\s*(.*)$/.exec(trimmed);
    if (m) out.set(m[1], m[2]);
    else out.set(trimmed, "");
  }
  return out;
}

/** Resolves every placeholder in one value; `where` names the property for error messages. */
function resolveValue(
  value: string,
  where: string,
  env: PlaceholderEnv = DENO_PLACEHOLDER_ENV,
  onResolved: (resolved: string) => void = () => {},
): string {
  const files = new Map<string, Map<string, string>>();
  return value.replace(PLACEHOLDER, (whole, provider: string, path: string | undefined, key: string) => {
    let resolved: string | undefined;
    if (provider === "env") {
      if (path !== undefined) throw new ConfigError(`${where}: ${whole} takes no path; use \${env:NAME}`);
      resolved = env.env(key);
      if (resolved === undefined) {
        throw new ConfigError(`${where}: environment variable ${key} is not set (from ${whole})`);
      }
    } else if (provider === "file") {
      if (path === undefined) {
        throw new ConfigError(`${where}: ${whole} needs a path and a key: \${file:PATH:KEY}`);
      }
      let props = files.get(path);
      if (!props) {
        try {
          props = parseProperties(env.readFile(path));
        } catch (e) {
          throw new ConfigError(`${where}: cannot read ${path} for ${whole}: ${(e as Error).message}`);
        }
        files.set(path, props);
      }
      resolved = props.get(key);
      if (resolved === undefined) {
        throw new ConfigError(`${where}: key ${key} not found in ${path} (from ${whole})`);
      }
    } else {
      throw new ConfigError(
        `${where}: unknown config provider '${provider}' in ${whole}; supported: env, file`,
      );
    }
    onResolved(resolved);
    return resolved;
  });
}

/** Resolves every placeholder in a config map. Errors are collected per key rather than stopping at the first. */
export function resolveConfig(
  raw: Record<string, string>,
  env: PlaceholderEnv = DENO_PLACEHOLDER_ENV,
): {
  resolved: Record<string, string>;
  errors: Map<string, string>;
  fromPlaceholders: Map<string, string[]>;
} {
  const resolved: Record<string, string> = {};
  const errors = new Map<string, string>();
  const fromPlaceholders = new Map<string, string[]>();
  for (const [key, value] of Object.entries(raw)) {
    try {
      resolved[key] = resolveValue(value, key, env, (piece) => {
        fromPlaceholders.set(key, [...fromPlaceholders.get(key) ?? [], piece]);
      });
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      errors.set(key, e.message);
      resolved[key] = value;
    }
  }
  return { resolved, errors, fromPlaceholders };
}

/**
 * Registers as secrets the placeholder values that may be secret: those of PASSWORD-typed properties and of keys
 * with no definition among `defs`. Call it before anything that may log the config.
 */
export function registerResolvedSecrets(
  defs: readonly PropertyDef[],
  fromPlaceholders: Map<string, string[]>,
): void {
  for (const [key, pieces] of fromPlaceholders) {
    const def = defs.find((d) => d.name === key);
    if (def && def.type !== "PASSWORD") continue;
    for (const piece of pieces) registerSecret(piece);
  }
}
