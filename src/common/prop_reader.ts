/**
 * Typed reads of parsed connector properties (`TypedProps`) for the code that turns them into its own settings
 * (instance client, source, sink). Values were already validated against the definitions; a wrong type here
 * means the props did not come from them, and the error names the property. Each caller passes the error class
 * its own callers branch on.
 */
import type { PropValue, TypedProps } from "./props.ts";

export class PropReader {
  constructor(
    private readonly props: TypedProps,
    private readonly error: (message: string) => Error,
  ) {}

  value(name: string): PropValue | undefined {
    return this.props[name];
  }

  /** A string, or null when unset or empty. */
  optionalString(name: string): string | null {
    const v = this.props[name];
    if (v === null || v === undefined || v === "") return null;
    if (typeof v !== "string") throw this.error(`${name} must be a string, got ${JSON.stringify(v)}`);
    return v;
  }

  /** A string that may be empty but must be present. */
  string(name: string): string {
    const v = this.props[name];
    if (typeof v !== "string") throw this.error(`${name} must be a string, got ${JSON.stringify(v)}`);
    return v;
  }

  /** A non-empty string; `neededFor` explains why it is required. */
  requiredString(name: string, neededFor?: string): string {
    const v = this.optionalString(name);
    if (v === null) throw this.error(`${name} is required${neededFor ? ` for ${neededFor}` : ""}`);
    return v;
  }

  number(name: string, min?: number): number {
    const v = this.props[name];
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw this.error(`${name} must be a number, got ${JSON.stringify(v)}`);
    }
    if (min !== undefined && v < min) throw this.error(`${name} must be at least ${min}, got ${v}`);
    return v;
  }

  optionalNumber(name: string): number | null {
    const v = this.props[name];
    return v === null || v === undefined ? null : this.number(name);
  }

  boolean(name: string): boolean {
    const v = this.props[name];
    if (typeof v !== "boolean") throw this.error(`${name} must be a boolean, got ${JSON.stringify(v)}`);
    return v;
  }

  /** A list with empty entries removed; unset is the empty list. */
  list(name: string): string[] {
    const v = this.props[name];
    if (v === null || v === undefined) return [];
    if (!Array.isArray(v)) throw this.error(`${name} must be a list`);
    return v.map((item) => item.trim()).filter((item) => item !== "");
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T {
    const v = this.string(name);
    const found = allowed.find((candidate) => candidate === v);
    if (found === undefined) throw this.error(`${name} must be one of ${allowed.join(", ")}, got "${v}"`);
    return found;
  }
}
