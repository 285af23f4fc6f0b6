/**
 * Parsing of converter settings with Kafka `ConfigDef` semantics (values trimmed, booleans case-insensitive,
 * Kafka's error messages), so a bad `schemas.enable` reads the same as in Connect.
 */
import { ConfigException } from "../errors.ts";
import type { ConverterConfig } from "./converter.ts";

/** A BOOLEAN setting: `true`/`false` in any case; absent → the default. */
export function booleanSetting(configs: ConverterConfig, name: string, defaultValue: boolean): boolean {
  const raw = configs[name];
  if (raw === undefined) return defaultValue;
  const value = raw.trim().toLowerCase();
  if (value === "true") return true;
  if (value === "false") return false;
  throw ConfigException.invalidValue(name, raw, "Expected value to be either true or false");
}

/** An INT setting; absent → the default. */
export function intSetting(
  configs: ConverterConfig,
  name: string,
  defaultValue: number,
  min?: number,
): number {
  const raw = configs[name];
  if (raw === undefined) return defaultValue;
  const text = raw.trim();
  const value = Number(text);
  if (!/^[+-]?\d+$/.test(text) || value < -2147483648 || value > 2147483647) {
    throw ConfigException.invalidValue(name, raw, "Not a number of type INT");
  }
  if (min !== undefined && value < min) {
    throw ConfigException.invalidValue(name, raw, `Value must be at least ${min}`);
  }
  return value;
}

/** A STRING setting restricted to `allowed` values, compared case-insensitively; returns the canonical spelling. */
export function caseInsensitiveChoice<T extends string>(
  configs: ConverterConfig,
  name: string,
  allowed: readonly T[],
  defaultValue: T,
): T {
  const raw = configs[name];
  if (raw === undefined) return defaultValue;
  const match = allowed.find((a) => a.toLowerCase() === raw.trim().toLowerCase());
  if (match === undefined) {
    throw ConfigException.invalidValue(
      name,
      raw,
      `String must be one of (case insensitive): ${allowed.join(", ")}`,
    );
  }
  return match;
}
