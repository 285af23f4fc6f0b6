/**
 * A small flag parser for the CLI: `--name value`, `--name=value` and boolean `--flag`.
 * Unknown flags and missing values are usage errors (exit 2), reported with the command's usage.
 */
export class UsageError extends Error {
  override name = "UsageError";
}

export interface FlagSpec {
  /** Flags that take a value. */
  values?: readonly string[];
  /** Flags that are booleans. */
  booleans?: readonly string[];
  /** Flags that may be given more than once (values collected in order). */
  repeatable?: readonly string[];
}

export interface ParsedArgs {
  flags: Map<string, string[]>;
  booleans: Set<string>;
  positionals: string[];
}

export function parseArgs(args: string[], spec: FlagSpec): ParsedArgs {
  const values = new Set(spec.values ?? []);
  const booleans = new Set(spec.booleans ?? []);
  const repeatable = new Set(spec.repeatable ?? []);
  const out: ParsedArgs = { flags: new Map(), booleans: new Set(), positionals: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("--") || arg === "--") {
      out.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    if (booleans.has(name)) {
      if (eq > 0) throw new UsageError(`flag --${name} takes no value`);
      out.booleans.add(name);
    } else if (values.has(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
      if (value === undefined || (eq < 0 && value.startsWith("--"))) {
        throw new UsageError(`flag --${name} needs a value`);
      }
      const list = out.flags.get(name) ?? [];
      if (list.length > 0 && !repeatable.has(name)) {
        throw new UsageError(`flag --${name} is given more than once`);
      }
      list.push(value);
      out.flags.set(name, list);
    } else {
      throw new UsageError(`unknown flag --${name}`);
    }
  }
  return out;
}

/** The single value of a flag, or undefined. */
export function flag(parsed: ParsedArgs, name: string): string | undefined {
  return parsed.flags.get(name)?.[0];
}
